"""Issue 40, item 5: the local daemons' and agents' sockets are out of reach inside the sandbox
(docs/threat-model.md, "Daemon sockets"), with real bubblewrap, as root and as nobody.

Real Unix socket servers listen where Docker, Docker Desktop, Podman, the ssh agent, gpg-agent and
the session bus put theirs (outside /tmp and /run, which are private already): each is reachable
from outside the sandbox (the control) and refused from a command inside it. Abstract sockets
have no file to mask: they are cut with the network (`--unshare-net`) and reachable when the
session allows network, which the threat model says.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from host.engine.sandbox.policy import daemon_sockets, socket_paths_in
from tests.security.sandboxing import PY, Box, needs_sandbox, open_box, sandbox_on, users

pytestmark = [needs_sandbox, pytest.mark.usefixtures("sandbox_on")]
__all__ = ["sandbox_on"]

CONNECT = """\
import socket, sys
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    try:
        s.connect(path)
        print("REACHED", path)
    except OSError as refused:
        print("REFUSED", path, refused.__class__.__name__)
"""


class Daemons:
    """Listening Unix sockets (never accepted: a connect succeeds from the backlog)."""

    def __init__(self) -> None:
        self.listeners: list[socket.socket] = []

    def listen(self, path: Path | str) -> str:
        path = str(path)
        if not path.startswith("\0"):
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            for parent in Path(path).parents:  # nobody must reach it from outside (the control)
                if str(parent).startswith("/var/tmp/harnessdesk-sbx-"):
                    os.chmod(parent, 0o777)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)
        sock.listen(16)
        if not path.startswith("\0"):
            os.chmod(path, 0o777)
        self.listeners.append(sock)
        return path

    def close(self) -> None:
        for sock in self.listeners:
            sock.close()


@pytest.fixture(params=users())
def box(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Box]:
    yield from open_box(request.param, monkeypatch)


@pytest.fixture
def daemons() -> Iterator[Daemons]:
    found = Daemons()
    yield found
    found.close()


def reached(box: Box, paths: list[str], inside: bool, **policy: object) -> dict[str, str]:
    argv = [PY, "-c", CONNECT, *paths]
    if inside:
        done = box.exec(argv, box.policy(**policy))
    else:
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        done = subprocess.run(
            [*(prefix if box.user == "nobody" else []), *argv], capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 0, done.stderr
    return {line.split(" ")[1]: line.split(" ")[0] for line in done.stdout.splitlines()}


def test_daemon_and_agent_sockets_are_unreachable_from_a_sandboxed_command(
    box: Box, daemons: Daemons, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = box.root / "elsewhere"
    paths = [
        daemons.listen(box.home / ".docker" / "run" / "docker.sock"),
        daemons.listen(box.home / ".docker" / "desktop" / "docker.sock"),
        daemons.listen(box.home / ".colima" / "default" / "docker.sock"),
        daemons.listen(elsewhere / "ssh-agent" / "agent.42"),
        daemons.listen(elsewhere / "bus"),
        daemons.listen(elsewhere / "podman" / "podman.sock"),
        daemons.listen(elsewhere / "gnupg" / "S.gpg-agent"),
        daemons.listen(elsewhere / "runtime" / "podman" / "podman.sock"),
    ]
    monkeypatch.setenv("SSH_AUTH_SOCK", paths[3])
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={paths[4]},guid=0123;unix:abstract=/x")
    monkeypatch.setenv("CONTAINER_HOST", f"unix://{paths[5]}")
    monkeypatch.setenv("GNUPGHOME", str(elsewhere / "gnupg"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(elsewhere / "runtime"))
    outside = reached(box, paths, inside=False)
    assert outside == {p: "REACHED" for p in paths}  # the control: each one answers
    for network in (False, True):  # a file is masked whatever the network switch says
        assert reached(box, paths, inside=True, network=network) == {p: "REFUSED" for p in paths}
    assert box.workspace.is_dir() and (box.workspace / "main.py").exists()  # the folder stays


def test_an_abstract_socket_is_cut_with_the_network(box: Box, daemons: Daemons) -> None:
    name = f"\0harnessdesk-test-{os.getpid()}-{box.user}"
    daemons.listen(name)
    probe = [PY, "-c", CONNECT.replace("s.connect(path)", "s.connect('\\0' + path)"), name[1:]]
    assert "REFUSED" in box.exec(probe, box.policy(network=False)).stdout
    assert "REACHED" in box.exec(probe, box.policy(network=True)).stdout  # documented: with network


def test_the_socket_variables_are_read_as_their_programs_read_them(tmp_path: Path) -> None:
    assert socket_paths_in("DBUS_SESSION_BUS_ADDRESS", "unix:path=/a/bus,guid=1;tcp:host=x;unix:path=/b") == [
        "/a/bus",
        "/b",
    ]
    assert socket_paths_in("DBUS_SESSION_BUS_ADDRESS", "unix:abstract=/tmp/dbus-x") == []
    assert socket_paths_in("DOCKER_HOST", "unix:///var/d.sock") == ["/var/d.sock"]
    assert socket_paths_in("DOCKER_HOST", "tcp://127.0.0.1:2375") == []
    assert socket_paths_in("GPG_AGENT_INFO", "/g/S.gpg-agent:123:1") == ["/g/S.gpg-agent"]
    assert socket_paths_in("SSH_AUTH_SOCK", "/s/agent.1") == ["/s/agent.1"]
    sock = tmp_path / "agent.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock))
    try:
        link = tmp_path / "agent.link"
        link.symlink_to(sock)
        found = daemon_sockets(
            tmp_path / "home", {"SSH_AUTH_SOCK": str(link), "DOCKER_HOST": "unix://relative"}
        )
        assert found == [sock]  # resolved; a relative or missing one names nothing
    finally:
        listener.close()
