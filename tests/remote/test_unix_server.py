"""`harnessdesk serve --unix-socket PATH` as a remote host runs it (docs/decisions.md, "Remote
hosts"; docs/threat-model.md, "Remote hosts"), here without ssh: the real command, its socket
(0600 in a 0700 folder, no TCP port), the token on stdout, the fence on the socket, the handover
kept in memory, the detached server's idle exit, the attached one ending with its stdin, and the
peer check that refuses a process inside one of the host's sandboxes."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from contract.methods import (
    CREDENTIALS_DESCRIBE,
    HOST_DESCRIBE,
    SETTINGS_DESCRIBE,
    SETTINGS_UPDATE,
    AnyMethod,
)
from host.engine.sandbox import SandboxPolicy, wrap
from host.fetch.http_client import HttpApiClient
from host.server.unix import inside_sandbox
from tests.api.support import err, ok
from tests.remote.support import alive, until
from tests.security.sandboxing import needs_sandbox, sandbox_on  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-handed-over-7f3a"
CLI = [sys.executable, "-m", "desktop", "serve"]


@pytest.fixture
def place() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="hd-unix-", dir="/var/tmp"))
    yield root
    subprocess.run(["rm", "-rf", str(root)], check=False)


def serve(place: Path, *flags: str, handover: dict[str, Any] | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "desktop", "serve", "--unix-socket", str(place / "run" / "serve.sock")]
    argv += ["--data-dir", str(place / "data"), "--handover", "-", *flags]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=place)
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(handover or {}) + "\n").encode())
    proc.stdin.flush()
    return proc


def ready_line(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    ready: dict[str, Any] = json.loads(line)
    assert ready["harnessdesk"] == "ready", ready
    return ready


def tcp_listeners(pid: int) -> set[int]:
    """Inodes of the listening TCP sockets process `pid` holds."""
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":
                listening.add(int(fields[9]))
    held = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        target = os.readlink(f"/proc/{pid}/fd/{fd}")
        if target.startswith("socket:["):
            held.add(int(target[8:-1]))
    return listening & held


def client(place: Path, token: str) -> HttpApiClient:
    uds = httpx.AsyncHTTPTransport(uds=str(place / "run" / "serve.sock"))
    return HttpApiClient("http://localhost", token, transport=uds)


async def post(place: Path, method: AnyMethod, headers: dict[str, str]) -> httpx.Response:
    body = json.dumps({"type": "client-request", "rpcId": "r", "method": method.key, "payload": {}})
    transport = httpx.AsyncHTTPTransport(uds=str(place / "run" / "serve.sock"))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as raw:
        return await raw.post(
            f"/api/{method.key}", content=body, headers={"content-type": "application/json", **headers}
        )


async def test_a_detached_server_answers_on_its_socket_with_its_token_and_stops_when_idle(
    place: Path,
) -> None:
    handover = {
        "settings": {"llm-deepseek": {"apiKeyEnv": "HANDED_KEY"}},
        "credentials": {"HANDED_KEY": SECRET},
        "overrides": {"model": "deepseek-chat"},
    }
    # idle for 4 s, yet never while the test looks (docs/decisions/what-a-test-run-repeats.md):
    # a connection held open from the ready line on counts as a client (the idle check's own
    # rule), so no gap between the checks below, however loaded the machine, lets it stop early;
    # the wait at the end is then the idle time itself
    proc = serve(place, "--detach", "--idle-exit", "4", handover=handover)
    ready = ready_line(proc)
    holder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    holder.connect(str(place / "run" / "serve.sock"))
    assert proc.wait(60) == 0  # the launching process is gone: the SSH command would end here
    run = place / "run"
    assert stat.S_IMODE(run.stat().st_mode) == 0o700
    assert stat.S_IMODE((run / "serve.sock").stat().st_mode) == 0o600
    assert stat.S_IMODE((run / "token").stat().st_mode) == 0o600
    assert (run / "token").read_text().strip() == ready["token"]
    info = json.loads((run / "serve.json").read_text())
    assert (info["pid"], info["mode"]) == (ready["pid"], "detached") and alive(info["pid"])
    assert not tcp_listeners(info["pid"])  # no TCP port is opened there

    # the fence, unchanged: the token, a loopback Host; privileged for the user's own processes,
    # unless the relaying host says its caller was not
    assert (await post(place, HOST_DESCRIBE, {})).status_code == 401
    assert (await post(place, HOST_DESCRIBE, {"authorization": "Bearer wrong"})).status_code == 401
    bearer = {"authorization": f"Bearer {ready['token']}"}
    assert (await post(place, HOST_DESCRIBE, {**bearer, "host": "evil.example"})).status_code == 403
    assert (await post(place, SETTINGS_DESCRIBE, bearer)).status_code == 200
    lowered = {**bearer, "x-harnessdesk-unprivileged": "1"}
    assert (await post(place, SETTINGS_DESCRIBE, lowered)).status_code == 403

    # the handover: used, never written there
    async with client(place, ready["token"]) as c:
        assert (await ok(c, HOST_DESCRIBE, {})).model == "deepseek-chat"
        creds = await ok(c, CREDENTIALS_DESCRIBE, {"refs": ["HANDED_KEY"]})
        assert creds.credentials["HANDED_KEY"].configured
        await err(
            c, SETTINGS_UPDATE, {"ns": "llm-deepseek", "patch": {"apiKeyEnv": "X"}}, "settings-rejected"
        )
    for path in (place / "data").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path

    assert alive(info["pid"])  # the held connection kept it up, however long the checks took
    holder.close()
    # nobody connected, nothing running: it stops itself, and takes its socket and token along
    await until(lambda: not alive(info["pid"]), 180)
    assert not (run / "serve.sock").exists() and not (run / "token").exists()


async def test_an_attached_server_ends_when_its_stdin_closes(place: Path) -> None:
    proc = serve(place, "--attached")
    ready = ready_line(proc)
    assert not (place / "run" / "token").exists()  # the token left on stdout only
    async with client(place, ready["token"]) as c:
        assert (await c.call(HOST_DESCRIBE, {})).result.ok
    assert proc.stdin is not None
    proc.stdin.close()  # the SSH session is gone
    assert proc.wait(60) == 0
    assert not (place / "run" / "serve.sock").exists()


def test_a_second_server_on_the_same_socket_is_refused(place: Path) -> None:
    first = serve(place, "--attached")
    ready_line(first)
    try:
        other = subprocess.run(
            [
                *CLI,
                "--unix-socket",
                str(place / "run" / "serve.sock"),
                "--data-dir",
                str(place / "data2"),
                "--attached",
            ],
            input=b"",
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=120,
        )
        assert other.returncode == 2 and b"already answers" in other.stderr
    finally:
        assert first.stdin is not None
        first.stdin.close()
        first.wait(60)


@needs_sandbox
def test_a_process_inside_a_sandbox_is_refused_and_the_users_others_are_not(
    place: Path,
    sandbox_on: None,  # noqa: F811
) -> None:
    (place / "work").mkdir()
    boxed = subprocess.Popen(wrap(["/bin/sleep", "60"], SandboxPolicy(place / "work")), cwd=place / "work")
    plain = subprocess.Popen(["/bin/sleep", "60"])
    try:
        inner = _descendant(boxed.pid, "sleep")
        assert inside_sandbox(inner, os.getpid())
        assert not inside_sandbox(plain.pid, os.getpid())
        assert not inside_sandbox(1, os.getpid())  # not ours at all: not one of our sandboxes
    finally:
        for proc in (boxed, plain):
            proc.kill()
            proc.wait(10)


def _descendant(pid: int, name: str) -> int:
    """The process named `name` below `pid` (bubblewrap runs the command as its grandchild)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        stack = [pid]
        while stack:
            here = stack.pop()
            for task in os.listdir(f"/proc/{here}/task") if os.path.isdir(f"/proc/{here}/task") else []:
                try:
                    children = Path(f"/proc/{here}/task/{task}/children").read_text().split()
                except OSError:
                    continue
                for child in map(int, children):
                    try:
                        if Path(f"/proc/{child}/comm").read_text().strip() == name:
                            return child
                    except OSError:
                        continue
                    stack.append(child)
        time.sleep(0.05)
    raise AssertionError(f"no {name} below {pid}")
