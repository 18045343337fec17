"""The `harnessdesk` command line from a warm interpreter, for the CLI tests and for the fault
tests that kill `serve` and start it again many times: the app is imported once, and each command
runs in a fork of it.

`python -m tests.support.warm_cli` imports the command line and everything its commands import,
then reads one JSON command per line on stdin: `{"args", "cwd", "env", "out", "err"}`. It forks a
child that runs exactly what the `harnessdesk` binary runs (`desktop.cli.main(args)`, stdin from
/dev/null, stdout and stderr to the two files, or both to one, `cwd` and `env` its own) and
answers the child's pid, then, once the child ended, its exit status. With `"op": "start"` it
answers only the pid; `{"op": "poll", "pid"}` then answers the status (-9 for SIGKILL), or null
while the child runs. Each command is a
fresh process (only the imports and the contract's deferred validators, which `serve` builds after
its listening line, are shared), so it sees what a started binary sees: no state of an earlier
command, and killing a `serve` loses exactly what killing `harnessdesk serve` loses.

`WarmCli.run(...)` is the test side; it returns what `subprocess.run(..., capture_output=True,
text=True)` returns.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


# ---- the warm interpreter --------------------------------------------------------------------


def _child(command: dict[str, Any]) -> int:
    os.chdir(command["cwd"])
    os.environ.clear()
    os.environ.update(command["env"])
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(os.open(command["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
    if command["err"] == command["out"]:  # one log of both, in the order they were written
        os.dup2(1, 2)
    else:
        os.dup2(os.open(command["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
    sys.stdin = open(os.devnull, encoding="utf-8")
    sys.argv = ["harnessdesk", *command["args"]]
    from desktop.cli import main

    try:
        code = main(command["args"])
    except SystemExit as exc:  # argparse errors exit from inside the parser
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()  # as the interpreter reports an uncaught exception
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def _code(raw: int) -> int:
    """A wait status as `subprocess` reports it (-9 for SIGKILL)."""
    return -os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else os.WEXITSTATUS(raw)


def _status(pid: int) -> int:
    return _code(os.waitpid(pid, 0)[1])


def _poll(pid: int) -> int | None:
    """The child's exit status if it has ended (reaped), else None."""
    done, raw = os.waitpid(pid, os.WNOHANG)
    return None if done == 0 else _code(raw)


def _fork(command: dict[str, Any]) -> int:
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            code = _child(command)
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    return pid


def serve_commands() -> None:
    import asyncio

    import uvicorn  # noqa: F401  (what `serve` and the commands import, once)

    import desktop.cli
    import desktop.folders
    import desktop.handoff
    import desktop.hostopen
    import desktop.instance_relay  # noqa: F401  (the commands import these when they run)
    import host.api.archive
    import host.fetch.inprocess
    import host.fetch.warm
    import host.server
    import host.server.run

    # what each `serve` child would build again after its listening line
    asyncio.run(host.fetch.warm.warm_contract())
    # A fork copies only the calling thread: with another thread alive a child could inherit a
    # lock it holds. The imports start none; say so loudly if that ever changes.
    assert threading.active_count() == 1, threading.enumerate()
    for line in sys.stdin:
        command = json.loads(line)
        op = command.get("op", "run")
        if op == "poll":  # a started child: its status once it ended, else null
            print(json.dumps(_poll(int(command["pid"]))), flush=True)
            continue
        pid = _fork(command)
        print(json.dumps(pid), flush=True)
        if op == "run":  # the caller waits for the end; `start` leaves it running
            print(json.dumps(_status(pid)), flush=True)


# ---- the test side -----------------------------------------------------------------------------


class WarmCli:
    """One warm interpreter (started on first use, for the test process); commands run one at a
    time."""

    def __init__(self, env: dict[str, str]) -> None:
        self._env = env
        self._proc: subprocess.Popen[bytes] | None = None
        self._read = b""
        self._lock = threading.Lock()
        self._dir = tempfile.TemporaryDirectory(prefix="harnessdesk-warm-cli-")

    def _started(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._read = b""
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "tests.support.warm_cli"],
                cwd=ROOT,
                env=self._env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,
            )
        return self._proc

    def run(
        self, args: list[str], cwd: Path, env: dict[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        with self._lock:
            proc = self._started()
            assert proc.stdin is not None and proc.stdout is not None
            out, err = Path(self._dir.name) / "out", Path(self._dir.name) / "err"
            command = {"args": args, "cwd": str(cwd), "env": env, "out": str(out), "err": str(err)}
            proc.stdin.write(json.dumps(command).encode() + b"\n")
            pid = json.loads(self._line(proc, 60))
            try:
                code = json.loads(self._line(proc, timeout))
            except subprocess.TimeoutExpired:
                os.kill(pid, signal.SIGKILL)  # as subprocess.run kills a command that overran
                self._line(proc, 60)
                raise subprocess.TimeoutExpired(["harnessdesk", *args], timeout) from None
            return subprocess.CompletedProcess(
                ["harnessdesk", *args], code, out.read_text(errors="replace"), err.read_text(errors="replace")
            )

    def start(self, args: list[str], cwd: Path, env: dict[str, str], out: Path, err: Path) -> Forked:
        """`harnessdesk ARGS` left running (stdout and stderr to `out` and `err`): a handle that
        answers as much of `subprocess.Popen` as the tests use."""
        with self._lock:
            proc = self._started()
            assert proc.stdin is not None
            command = {
                "op": "start",
                "args": args,
                "cwd": str(cwd),
                "env": env,
                "out": str(out),
                "err": str(err),
            }
            proc.stdin.write(json.dumps(command).encode() + b"\n")
            return Forked(self, int(json.loads(self._line(proc, 60))))

    def poll(self, pid: int) -> int | None:
        with self._lock:
            proc = self._started()
            assert proc.stdin is not None
            proc.stdin.write(json.dumps({"op": "poll", "pid": pid}).encode() + b"\n")
            answer = json.loads(self._line(proc, 60))
            return None if answer is None else int(answer)

    def _line(self, proc: subprocess.Popen[bytes], timeout: float) -> str:
        """The next answer line (unbuffered reads: both answers may arrive in one chunk)."""
        assert proc.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._read:
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise subprocess.TimeoutExpired("warm cli", timeout)
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                raise RuntimeError(f"the warm interpreter exited ({proc.wait()})")
            self._read += chunk
        line, self._read = self._read.split(b"\n", 1)
        return line.decode()

    def close(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(30)
        self._dir.cleanup()


class Forked:
    """A `harnessdesk` child of the warm interpreter, driven like a `subprocess.Popen`: signals
    go straight to it (SIGKILL is a real crash); its status comes from the interpreter that
    reaps it."""

    def __init__(self, warm: WarmCli, pid: int) -> None:
        self.warm = warm
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.warm.poll(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"harnessdesk (pid {self.pid})", timeout or 0)
            time.sleep(0.02)
        return code

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:  # never a signal to a reaped pid (it may be reused)
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


if __name__ == "__main__":
    serve_commands()
