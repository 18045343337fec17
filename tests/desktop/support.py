"""Launching the desktop app under Xvfb for tests: a subprocess, the page driver, sockets, retries.

`webview.start()` must own its process's main thread, so the app always runs as a subprocess
(`python -m tests.desktop.launch`: the real CLI with the test host). The app evaluates the
tests' JavaScript in its page through the Unix socket named by `HARNESSDESK_AUTOMATION`
(desktop/automation.py, tests/desktop/driver.py). An app that dies of SIGABRT gets one retry
via `gui_test` (a rare abort was seen with the former Qt backend; kept as a guard).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from desktop.automation import ENV as AUTOMATION_ENV
from tests.desktop import driver, x11

ROOT = Path(__file__).resolve().parents[2]
F = TypeVar("F", bound=Callable[..., Any])
ABORT_CODES = {134, -signal.SIGABRT}
REPORT_TAIL = 6000


class AppAbort(Exception):
    """The app died of SIGABRT: the test is retried once."""


def gui_test(fn: F) -> F:
    """Run a GUI test; on an abort stop its apps and run it once more."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AppAbort:
            apps: AppFactory = kwargs["apps"]
            apps.stop_all()
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


class App:
    """One app process and the handles a test needs on it."""

    launched: ClassVar[weakref.WeakSet[App]] = weakref.WeakSet()
    """Every app still referenced: a failed test's report shows their state (conftest.py)."""

    def __init__(self, display: str, data_dir: Path, args: list[str], env: dict[str, str]) -> None:
        App.launched.add(self)
        self.display = display
        self.data_dir = data_dir
        self.automation = Path(tempfile.mkdtemp(prefix="hd-auto-")) / "page.sock"  # short: AF_UNIX limit
        self.log_dir = data_dir.parent / f"{data_dir.name}-logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.stdout_path = self.log_dir / f"stdout-{time.monotonic_ns()}.txt"
        self.stderr_path = self.stdout_path.with_name(self.stdout_path.name.replace("stdout", "stderr"))
        full_env = {
            **os.environ,
            "DISPLAY": display,
            AUTOMATION_ENV: str(self.automation),
            "PYTHONUNBUFFERED": "1",
            "PYTHONFAULTHANDLER": "1",  # a hung app's threads are dumped (see `wait`)
            **env,
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.desktop.launch", *args, "--data-dir", str(data_dir)],
            cwd=ROOT,
            env=full_env,
            stdout=self.stdout_path.open("wb"),
            stderr=self.stderr_path.open("wb"),
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stdout(self) -> str:
        return self.stdout_path.read_text(errors="replace")

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def report(self) -> str:
        """For a failed test: the end of stderr, after every thread's stack if still running."""
        running = self.proc.poll() is None
        if running:
            with contextlib.suppress(OSError):
                self.proc.send_signal(signal.SIGUSR2)  # faulthandler: launch.py (JSC has SIGUSR1)
                time.sleep(0.5)
        state = "running" if running else f"exited {self.proc.returncode}"
        return f"app {self.pid} ({state}, {self.data_dir.name}) stderr tail:\n{self.stderr()[-REPORT_TAIL:]}"

    def _check_alive(self, what: str) -> None:
        code = self.proc.poll()
        if code in ABORT_CODES:
            raise AppAbort(f"app aborted while {what}")
        if code is not None:
            raise AssertionError(f"app exited {code} while {what}:\n{self.stderr()[-3000:]}")

    def page(self, timeout: float = 45.0) -> driver.Page:
        """The window's page, once pywebview's API (and so the bridge) is ready in it."""
        deadline = time.monotonic() + timeout
        while True:
            self._check_alive("waiting for its page")
            try:
                return driver.connect_ready(self.automation, timeout=3)
            except (driver.DriverError, OSError):
                if time.monotonic() > deadline:
                    raise

    def window(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_alive("waiting for its window")
            found = x11.find_windows(self.display, "^HarnessDesk$", self.pid)
            if found:
                return found[0]
            time.sleep(0.1)
        raise AssertionError("the HarnessDesk window did not appear")

    def wait(self, timeout: float = 30.0) -> int:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired as exc:
            self.proc.send_signal(signal.SIGABRT)  # faulthandler prints every thread's stack
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            raise AssertionError(f"app still running after {timeout}s:\n{self.stderr()[-6000:]}") from exc
        if code in ABORT_CODES:
            raise AppAbort("app aborted while exiting")
        return code

    def close_window(self, timeout: float = 30.0) -> int:
        x11.close_window(self.display, self.window())
        return self.wait(timeout)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def host_log(self) -> list[str]:
        path = self.data_dir / "host.log"
        return path.read_text().splitlines() if path.exists() else []

    def wait_log(self, line: str, timeout: float = 30.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if line in self.host_log():
                return self.host_log()
            time.sleep(0.05)
        raise AssertionError(f"{line!r} not in host.log: {self.host_log()}")

    def listening_tcp(self) -> set[tuple[str, int]]:
        """(address, port) of every listening TCP socket held by the app or its children."""
        return listening_tcp([self.pid, *descendants(self.pid)])


class AppFactory:
    """Per-test launcher: each launch gets a fresh data dir unless one is given."""

    def __init__(self, display: str, tmp: Path) -> None:
        self.display = display
        self.tmp = tmp
        self.apps: list[App] = []

    def launch(self, *args: str, data_dir: Path | None = None, env: dict[str, str] | None = None) -> App:
        if data_dir is None:
            data_dir = self.tmp / f"data{len(self.apps)}-{time.monotonic_ns()}"
        app = App(self.display, data_dir, list(args), env or {})
        self.apps.append(app)
        return app

    def stop_all(self) -> None:
        for app in self.apps:
            app.stop()
        self.apps.clear()


def descendants(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = map(int, line.split())
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        for fd in fd_dir.iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if m := re.fullmatch(r"socket:\[(\d+)\]", target):
                inodes.add(m.group(1))
    except OSError:
        pass
    return inodes


def listening_tcp(pids: list[int]) -> set[tuple[str, int]]:
    """Listening TCP sockets of `pids`, matched by inode in /proc/net/tcp and tcp6."""
    inodes = set().union(*(_socket_inodes(p) for p in pids))
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and inode in inodes:
                addr, port = local.split(":")
                found.add((addr, int(port, 16)))
    return found
