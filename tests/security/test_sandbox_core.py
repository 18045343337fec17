"""Escape attempts against the sandbox itself (`wrap()` with real bubblewrap), as root and as the
unprivileged user nobody. Each attempt has its control: the same command with the door the test
says is closed left open (or outside the sandbox) succeeds, so a test that passes means blocked."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from host.engine.sandbox import (
    SandboxPolicy,
    SandboxSupport,
    SandboxUnavailable,
    reset_support,
    support,
    wrap,
)
from host.engine.sandbox.probe import FORCE_ENV
from tests.security.sandboxing import PY, SECRET, Box, needs_sandbox, open_box, sandbox_on, users
from tests.support.ports import serve_in_thread

pytestmark = [needs_sandbox, pytest.mark.usefixtures("sandbox_on")]


@pytest.fixture(params=users())
def box(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Box]:
    yield from open_box(request.param, monkeypatch)


def test_the_folder_is_writable_and_a_command_runs_in_it(box: Box) -> None:
    done = box.run("pwd; echo made > made.txt; cat main.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == str(box.workspace)
    assert (box.workspace / "made.txt").read_text() == "made\n"


def test_writing_outside_by_absolute_path_dotdot_and_planted_symlinks_fails(box: Box) -> None:
    (box.workspace / "planted").symlink_to(box.outside)  # planted before the run
    script = (
        f"echo x > {box.outside}/abs.txt; echo x > ../outside/dotdot.txt;"
        f" ln -s {box.outside} link && echo x > link/viaink.txt; echo x > planted/planted.txt;"
        f" echo x >> planted/notes.txt; ln {box.outside}/notes.txt hard && echo x >> hard;"
        f" echo x > {box.home}/home.txt; echo x > /etc/harnessdesk-escape"
    )
    done = box.run(script)
    assert sorted(p.name for p in box.outside.iterdir()) == ["notes.txt"]
    assert (box.outside / "notes.txt").read_text() == "outside"
    assert not (box.home / "home.txt").exists() and not os.path.exists("/etc/harnessdesk-escape")
    assert "Read-only file system" in done.stderr
    assert not (box.workspace / "hard").exists()  # a hardlink across the mount: EXDEV
    control = subprocess.run(["/bin/sh", "-c", f"echo x > {box.outside}/abs.txt"], check=False)
    assert control.returncode == 0 and (box.outside / "abs.txt").exists()


def test_the_read_only_mode_writes_nowhere(box: Box) -> None:
    done = box.run(
        "echo x > made.txt; echo x >> main.py; echo x > /tmp/t && echo tmp-ok", box.policy(write=False)
    )
    assert not (box.workspace / "made.txt").exists()
    assert (box.workspace / "main.py").read_text() == "print('hi')\n"
    assert "tmp-ok" in done.stdout  # a private /tmp stays writable for tools that need one


def test_secrets_and_the_data_folder_are_masked(box: Box) -> None:
    (box.workspace / "key-link").symlink_to(box.home / ".ssh" / "id_ed25519")
    script = (
        f"cat {box.home}/.ssh/id_* {box.home}/.aws/credentials {box.home}/.netrc;"
        f" cat {box.data_dir}/credentials.json; ls -a {box.home}/.ssh {box.data_dir}; cat key-link"
    )
    done = box.run(script)
    assert SECRET not in done.stdout + done.stderr
    assert "id_ed25519" not in done.stdout and "credentials.json" not in done.stdout
    unmasked = subprocess.run(["/bin/sh", "-c", f"cat {box.home}/.ssh/id_*"], capture_output=True, text=True)
    assert SECRET in unmasked.stdout


def test_the_protected_entries_of_the_folder_stay_read_only(box: Box) -> None:
    script = (
        "echo evil > .git/hooks/pre-commit; echo '[core] fsmonitor = evil' >> .git/config;"
        " echo evil >> AGENTS.md; echo evil > .mcp.json; rm -f AGENTS.md .git/config;"
        " mv .git .git-moved; rm -rf .git; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit;"
        " echo work > src.txt"
    )
    done = box.run(script)
    assert (box.workspace / "src.txt").read_text() == "work\n"
    assert not (box.workspace / ".git" / "hooks" / "pre-commit").exists()
    assert (box.workspace / ".git" / "config").read_text() == "[core]\n"
    assert (box.workspace / "AGENTS.md").read_text() == "be nice\n"
    assert (box.workspace / ".mcp.json").read_text() == "{}\n"
    assert not (box.workspace / ".git-moved").exists()
    assert "Device or resource busy" in done.stderr or "Read-only" in done.stderr


def test_a_protected_entry_planted_as_a_symlink_shows_no_secret(box: Box) -> None:
    """A `.mcp.json` planted as a link to a key: binding it read-only must not unmask the key."""
    (box.workspace / ".mcp.json").unlink()
    (box.workspace / ".mcp.json").symlink_to(box.home / ".ssh" / "id_ed25519")
    (box.workspace / "AGENTS.md").unlink()
    (box.workspace / "AGENTS.md").symlink_to(box.outside / "notes.txt")
    done = box.run("cat .mcp.json; echo x >> AGENTS.md; echo ok")
    assert done.returncode == 0 and "ok" in done.stdout
    assert SECRET not in done.stdout + done.stderr
    assert (box.outside / "notes.txt").read_text() == "outside"


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"host-server")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def host_server() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    serve_in_thread(server)
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


CONNECT = """
import socket, sys
for host, port in [("127.0.0.1", int(sys.argv[1])), ("1.1.1.1", 53), ("10.255.255.1", 80)]:
    try:
        socket.create_connection((host, port), timeout=5).close()
        print("reached", host)
    except OSError as exc:
        print("blocked", host, exc.errno)
"""


def test_no_network_not_even_the_hosts_loopback_server(box: Box, host_server: int) -> None:
    done = box.exec([PY, "-I", "-c", CONNECT, str(host_server)])
    assert done.returncode == 0, done.stderr
    assert "reached" not in done.stdout
    assert done.stdout.count("blocked") == 3
    allowed = box.exec([PY, "-I", "-c", CONNECT, str(host_server)], box.policy(network=True))
    assert "reached 127.0.0.1" in allowed.stdout  # the switch really opens it


PEEK = """
import ctypes, os, signal, sys
host = int(sys.argv[1])
try:
    os.kill(host, signal.SIGTERM); print("signalled")
except OSError as exc:
    print("kill", exc.errno)
libc = ctypes.CDLL(None, use_errno=True)
print("ptrace", libc.ptrace(16, host, 0, 0), ctypes.get_errno())
try:
    print("environ", open(f"/proc/{host}/environ", "rb").read()[:40])
except OSError as exc:
    print("environ-blocked", exc.errno)
print("pids", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
"""


def test_the_host_cannot_be_signalled_traced_or_read_through_proc(box: Box) -> None:
    victim = subprocess.Popen(  # stands for the host: a process outside, with a secret environment
        [sys.executable, "-c", "import time; time.sleep(600)"], env={"HARNESSDESK_API_KEY": SECRET}
    )
    try:
        done = box.exec([PY, "-I", "-c", PEEK, str(victim.pid)])
        assert done.returncode == 0, done.stderr
        assert "signalled" not in done.stdout and SECRET not in done.stdout
        assert "environ-blocked" in done.stdout
        assert "ptrace -1" in done.stdout
        pids = eval(done.stdout.split("pids", 1)[1])  # the sandbox's own PID namespace: a handful
        assert max(pids) < 10  # only its own few processes
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


INJECT = """
import fcntl, sys, termios
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"#")
    print("injected")
except OSError as exc:
    print("refused", exc.errno)
"""

WITH_TTY = """
import fcntl, os, sys, termios
os.setsid()
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
os.execvp(sys.argv[1], sys.argv[1:])
"""


def _legacy_tiocsti() -> bool:
    try:
        with open("/proc/sys/dev/tty/legacy_tiocsti") as fh:
            return fh.read().strip() == "1"
    except OSError:
        return True


@pytest.mark.skipif(not _legacy_tiocsti(), reason="the kernel refuses TIOCSTI to everyone already")
def test_keystrokes_cannot_be_injected_into_the_terminal(box: Box) -> None:
    """The command gets the terminal as stdin (its controlling terminal outside): TIOCSTI fails."""
    import pty

    parent_fd, child_fd = pty.openpty()
    try:
        inner = wrap([PY, "-I", "-c", INJECT], box.policy())
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        argv = [*(prefix if box.user == "nobody" else []), PY, "-I", "-c", WITH_TTY]
        done = subprocess.run([*argv, *inner], stdin=child_fd, capture_output=True, text=True, timeout=120)
        assert "refused" in done.stdout, done.stdout + done.stderr
        control = subprocess.run(
            [*argv, PY, "-I", "-c", INJECT], stdin=child_fd, capture_output=True, text=True, timeout=120
        )
        assert "injected" in control.stdout  # outside the sandbox the same call works
    finally:
        os.close(parent_fd)
        os.close(child_fd)


def test_a_process_left_behind_dies_with_the_sandbox(box: Box) -> None:
    """Its own PID namespace: when the command ends, whatever it left running ends too."""
    done = box.run("(sleep 313.717 &) ; setsid sleep 313.718 & echo started")
    assert done.returncode == 0 and "started" in done.stdout
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "sleep 313.71" not in ps


def test_no_nested_user_namespace_and_no_capabilities(box: Box) -> None:
    done = box.run("grep CapEff /proc/self/status; unshare -U true && echo nested")
    assert "0000000000000000" in done.stdout
    assert "nested" not in done.stdout


def test_support_names_bubblewrap_and_a_turned_off_sandbox_refuses_to_wrap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found = support()
    assert found.kind == "bwrap" and found.available and "bubblewrap 0." in found.reason
    monkeypatch.setenv(FORCE_ENV, "none")
    reset_support()
    try:
        assert support() == SandboxSupport("none", support().reason) and not support().available
        with pytest.raises(SandboxUnavailable, match="No sandbox is available"):
            wrap(["true"], SandboxPolicy(Path("/")))
    finally:
        monkeypatch.delenv(FORCE_ENV)
        reset_support()
    assert support().kind == "bwrap"


__all__ = ["sandbox_on"]  # the fixture, imported for this module
