"""The parts of the remote-host support that need no remote machine: what a target may be, the
sentence a remote that cannot run the server gets, host keys and known_hosts, ~/.ssh/config
aliases, the files ssh is pointed at, the server's own wheels, the hosts file, the askpass
program, and the `remote.*` methods' refusals on a real local host."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import os
import stat
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from contract.methods import (
    HOST_LIST_DIRECTORY,
    REMOTE_ADD,
    REMOTE_CONNECT,
    REMOTE_LIST,
    REMOTE_REMOVE,
    REMOTE_TEST,
    REMOTE_TRUST_HOST_KEY,
    REMOTE_UPDATE,
    SESSION_CREATE,
    SESSION_LIST,
    TERMINAL_LIST,
    TERMINAL_OPEN,
)
from contract.remotes import parse_target
from host.api import open_host
from host.engine.services.remotes import ssh_config_entries
from host.engine.workspaces.remotes import bootstrap, hostkeys
from host.engine.workspaces.remotes.askpass import AskpassServer
from host.engine.workspaces.remotes.bootstrap import Bundle, RemoteFacts, RemotePython, RemoteUnsuitable
from host.engine.workspaces.remotes.records import RemoteRecords
from host.engine.workspaces.remotes.ssh import SshFiles, account_home
from host.engine.workspaces.remotes.wheels import normalized, requirement_name, server_wheels
from host.fetch import InProcessApiClient
from tests.api.support import err, ok

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("dev@box.example:2222", ("dev", "box.example", 2222)),
        ("box", (None, "box", None)),
        ("me@[::1]:22", ("me", "[::1]", 22)),
    ],
)
def test_targets_as_people_write_them(text: str, parsed: tuple[str | None, str, int | None]) -> None:
    assert parse_target(text) == parsed


@pytest.mark.parametrize("text", ["-oProxyCommand=touch /tmp/x", "a b", "me@", "box:0", "box:70000", ""])
def test_what_ssh_would_read_as_an_option_or_two_words_is_no_target(text: str) -> None:
    with pytest.raises(ValueError):
        parse_target(text)


def bundle(python: tuple[int, int] | None = (3, 11), glibc: tuple[int, int] | None = (2, 17)) -> Bundle:
    return Bundle("0.1.0-abc", b"", "0" * 64, "wheels", python, glibc, "x86_64", "Linux")


def facts(*pythons: RemotePython, arch: str = "x86_64", system: str = "Linux") -> RemoteFacts:
    return RemoteFacts(home="/home/u", system=system, arch=arch, pythons=list(pythons))


def py(version: tuple[int, int], glibc: tuple[int, int] | None = (2, 36)) -> RemotePython:
    return RemotePython(f"/usr/bin/python{version[0]}.{version[1]}", version, "linux-x86_64", glibc)


def test_the_remote_python_that_can_run_the_server_is_chosen() -> None:
    chosen = bootstrap.choose_python(facts(py((3, 9)), py((3, 11))), bundle())
    assert chosen is not None and chosen.version == (3, 11)
    assert bootstrap.choose_python(facts(py((3, 12))), bundle(python=None)) is not None  # pure wheels


@pytest.mark.parametrize(
    ("remote", "words"),
    [
        (facts(), "The remote has no Python 3; HarnessDesk's server needs Python 3.11 there."),
        (
            facts(py((3, 9))),
            "The remote has Python 3.9 (/usr/bin/python3.9); HarnessDesk's server needs Python 3.11 there"
            " (this computer's version: its compiled parts are built for it).",
        ),
        (
            facts(py((3, 11)), arch="aarch64"),
            "The remote is Linux aarch64 and this computer Linux x86_64: the server's compiled parts are"
            " this computer's, so it cannot run there.",
        ),
        (
            facts(py((3, 11), glibc=(2, 12))),
            "The remote's C library is older than glibc 2.17, which the server's compiled parts need.",
        ),
    ],
)
def test_a_remote_that_cannot_run_the_server_gets_one_sentence(remote: RemoteFacts, words: str) -> None:
    with pytest.raises(RemoteUnsuitable) as raised:
        bootstrap.choose_python(remote, bundle())
    assert str(raised.value) == words


def test_the_probe_is_read_back_as_the_remote_says_it() -> None:
    text = (
        "home=/home/dev\nsystem=Linux\narch=x86_64\npython=/usr/bin/python3.11|3.11|linux-x86_64|glibc-2.36\n"
        "python=/usr/bin/python3|3.11|linux-x86_64|glibc-2.36\nready=yes\nbwrap=yes\n"
        'server={"pid": 42, "version": "0.1.0-abc", "mode": "detached"}\n'
    )
    read = bootstrap.parse_probe(text)
    assert (read.home, read.ready, read.bwrap, read.server) == (
        "/home/dev",
        True,
        True,
        {"pid": 42, "version": "0.1.0-abc", "mode": "detached"},
    )
    assert [p.path for p in read.pythons] == ["/usr/bin/python3.11", "/usr/bin/python3"]
    assert read.socket == "/home/dev/.harnessdesk-server/run/serve.sock"


def test_the_probe_runs_under_a_posix_shell_here(tmp_path: Path) -> None:
    """The very command line the remote runs, on this machine's /bin/sh."""
    command = bootstrap.probe_command("0.1.0-none")
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, env={**os.environ, "HOME": str(tmp_path)}
    )
    read = bootstrap.parse_probe(done.stdout)
    assert (
        read.home == str(tmp_path) and read.system == os.uname().sysname and read.pythons and not read.ready
    )


UNKNOWN = """No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.
Host key verification failed.
"""
CHANGED = """@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @
@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
The fingerprint for the ED25519 key sent by the remote host is
SHA256:ToWEZPerLNHIZBPodPCIf6CUN6ohwS3d+pB0HEWiIxA.
Host key for [127.0.0.1]:2222 has changed and you have requested strict checking.
Host key verification failed.
"""


def test_what_ssh_says_of_a_host_key_it_refused() -> None:
    assert hostkeys.refusal(UNKNOWN) == ("unknown", "ED25519", None)
    assert hostkeys.refusal(CHANGED) == (
        "changed",
        "ED25519",
        "SHA256:ToWEZPerLNHIZBPodPCIf6CUN6ohwS3d+pB0HEWiIxA",
    )
    assert hostkeys.refusal("Permission denied (publickey).") is None


def endpoint(tmp_path: Path, hashed: bool) -> hostkeys.Endpoint:
    return hostkeys.Endpoint("127.0.0.1", 2222, "[127.0.0.1]:2222", tmp_path / ".ssh" / "known_hosts", hashed)


KEY = hostkeys.ScannedKey(
    "ED25519",
    "SHA256:x",
    "ssh-ed25519",
    "AAAAC3NzaC1lZDI1NTE5AAAAIAEfhP895kkIJApTkwLmCATWDCG7KgIPdPMlLEz7+AvB",
)


@pytest.mark.parametrize("hashed", [False, True])
def test_a_trusted_key_is_written_as_ssh_would_and_found_again(tmp_path: Path, hashed: bool) -> None:
    where = endpoint(tmp_path, hashed)
    where.known_hosts.parent.mkdir(mode=0o700)
    where.known_hosts.write_text("other.example ssh-rsa AAAAB3Nza\n")
    os.chmod(where.known_hosts, 0o644)
    hostkeys.record(where, KEY)
    lines = where.known_hosts.read_text().splitlines()
    assert lines[0] == "other.example ssh-rsa AAAAB3Nza"
    assert lines[1].startswith("|1|" if hashed else "[127.0.0.1]:2222 ")
    assert stat.S_IMODE(where.known_hosts.stat().st_mode) == 0o644
    assert hostkeys.known_keys(where.known_hosts, "[127.0.0.1]:2222") == [("ssh-ed25519", KEY.blob)]
    assert hostkeys.known_keys(where.known_hosts, "[127.0.0.1]:2223") == []
    if hashed:  # ssh itself finds the hashed line
        found = subprocess.run(
            ["ssh-keygen", "-F", "[127.0.0.1]:2222", "-f", str(where.known_hosts)],
            capture_output=True,
            text=True,
        )
        assert found.returncode == 0 and KEY.blob in found.stdout


def test_a_known_hosts_that_cannot_be_read_is_never_written_over(tmp_path: Path) -> None:
    where = endpoint(tmp_path, False)
    where.known_hosts.mkdir(parents=True)  # a folder in the file's place
    with pytest.raises(hostkeys.KnownHostsUnwritable):
        hostkeys.record(where, KEY)
    assert where.known_hosts.is_dir() and not list(where.known_hosts.iterdir())


def test_the_aliases_of_ssh_config_are_offered(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text(
        "Host *\n  ServerAliveInterval 5\nHost work dev-box\n  HostName 10.0.0.7\n  User me\n  Port 2200\n"
        "Host gpu\n  HostName gpu.example\nMatch host x\n  User nobody\nHost bastion-*\n  User jump\n"
    )
    entries = [(e.alias, e.host_name, e.user, e.port) for e in ssh_config_entries(config)]
    assert entries == [
        ("work", "10.0.0.7", "me", 2200),
        ("dev-box", "10.0.0.7", "me", 2200),
        ("gpu", "gpu.example", None, None),
    ]
    assert ssh_config_entries(tmp_path / "missing") == []


def test_ssh_is_pointed_at_home_only_when_home_is_not_the_accounts(tmp_path: Path) -> None:
    assert SshFiles(account_home()).options() == []
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_ed25519").write_text("key")
    options = SshFiles(tmp_path).options()
    assert options[:2] == ["-F", os.devnull]
    assert f"UserKnownHostsFile={tmp_path}/.ssh/known_hosts" in options
    assert f"IdentityFile={tmp_path}/.ssh/id_ed25519" in options
    (tmp_path / ".ssh" / "config").write_text("Host x\n")
    assert SshFiles(tmp_path).options()[:2] == ["-F", str(tmp_path / ".ssh" / "config")]


def test_the_servers_wheels_are_this_hosts_code_and_the_same_bytes_each_time() -> None:
    first, second = server_wheels(ROOT), server_wheels(ROOT)
    assert [(w.name, w.sha256) for w in first] == [(w.name, w.sha256) for w in second]
    names = [w.name.split("-")[0].lower() for w in first]
    assert names[0] == "pip" and "harnessdesk" in names and "pydantic_core" in names
    assert "xllamacpp" not in names  # the embedded model stays on this computer
    # every dependency pyproject.toml names goes along, even one added after `pip install -e .`
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = {normalized(requirement_name(r)).replace("-", "_") for r in declared} - {"xllamacpp"}
    assert wanted <= {normalized(n).replace("-", "_") for n in names}, wanted
    own = next(w for w in first if w.name.startswith("harnessdesk-"))
    with zipfile.ZipFile(io.BytesIO(own.data)) as zf:
        listed = zf.namelist()
        assert (ROOT / "host" / "relay" / "api.py").read_bytes() == zf.read("host/relay/api.py")
        record = zf.read(next(n for n in listed if n.endswith("/RECORD"))).decode()
    assert not any("__pycache__" in n for n in listed)
    digest = hashlib.sha256((ROOT / "contract" / "remotes.py").read_bytes()).digest()
    assert "contract/remotes.py,sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode() in record


def test_a_hosts_file_that_cannot_be_read_is_left_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "remotes.json").write_text("{not json")
    records = RemoteRecords.read(tmp_path)
    assert records.problem and not records.items
    with pytest.raises(OSError):
        records.save()
    assert (tmp_path / "remotes.json").read_text() == "{not json"


async def test_the_askpass_program_hands_the_prompt_to_the_host_and_prints_the_answer(tmp_path: Path) -> None:
    asked: list[tuple[str, str, bool]] = []

    async def ask(host_id: str, prompt: str, echo: bool) -> str | None:
        asked.append((host_id, prompt, echo))
        return "s3cret" if host_id == "h-1" else None

    server = AskpassServer(tmp_path, ask)
    await server.start()
    try:
        assert stat.S_IMODE(server.socket_path.stat().st_mode) == 0o600
        env = {**os.environ, **server.environment("h-1")}
        proc = await asyncio.create_subprocess_exec(
            str(server.program), "Enter passphrase for key 'id':", env=env, stdout=asyncio.subprocess.PIPE
        )
        out, _ = await proc.communicate()
        assert (proc.returncode, out) == (0, b"s3cret\n")
        forged = {**os.environ, **server.environment("h-2"), "HARNESSDESK_ASKPASS_KEY": "not-a-key"}
        proc = await asyncio.create_subprocess_exec(
            str(server.program), "p", env=forged, stdout=asyncio.subprocess.PIPE
        )
        out, _ = await proc.communicate()
        assert (proc.returncode, out) == (1, b"")  # an unknown key asks nobody
        assert asked == [("h-1", "Enter passphrase for key 'id':", False)]
    finally:
        await server.close()
    assert sys.executable in server.program.read_text()


async def test_remote_methods_refuse_bad_input_and_change_nothing(tmp_path: Path) -> None:
    runtime = await open_host(tmp_path / "data")
    client = InProcessApiClient(runtime.app)
    try:
        await err(client, REMOTE_ADD, {"target": "-oProxyCommand=sh"}, "bad-request")
        assert not (tmp_path / "data" / "remotes.json").exists()
        for key, payload in [
            (REMOTE_CONNECT, {"hostId": "h-nope"}),
            (REMOTE_TEST, {"hostId": "h-nope"}),
            (REMOTE_REMOVE, {"hostId": "h-nope"}),
            (REMOTE_TRUST_HOST_KEY, {"hostId": "h-nope", "fingerprint": "SHA256:abcdefgh"}),
        ]:
            await err(client, key, payload, "remote-host-not-found")
        await err(client, SESSION_CREATE, {"hostId": "h-nope", "cwd": str(tmp_path)}, "remote-host-not-found")
        assert (await ok(client, SESSION_LIST, {})).items == []
        added = await ok(client, REMOTE_ADD, {"target": "me@box.example:2222", "name": "Box"})
        host_id = added.host_id
        assert (await ok(client, REMOTE_ADD, {"target": "me@box.example:2222"})).host_id == host_id
        unavailable = await err(client, HOST_LIST_DIRECTORY, {"hostId": host_id}, "remote-unavailable")
        assert unavailable.details["state"] == "disconnected"
        updated = await ok(
            client, REMOTE_UPDATE, {"hostId": host_id, "mode": "attached", "settingsFrom": "remote"}
        )
        assert (updated.mode, updated.settings_from) == ("attached", "remote")
        assert '"mode": "attached"' in (tmp_path / "data" / "remotes.json").read_text()
        assert stat.S_IMODE((tmp_path / "data" / "remotes.json").stat().st_mode) == 0o600
        await client.call(REMOTE_REMOVE, {"hostId": host_id})
        assert (await ok(client, REMOTE_LIST, {})).items == []
    finally:
        await client.aclose()
        await runtime.close()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--remote=-oProxyCommand=sh"], "--remote -oProxyCommand=sh: not a target"),
        (["--remote", "me@"], "--remote me@: not a target"),
        (["--remote", "box", "serve"], "--remote opens the window; it does not go with `serve`"),
    ],
)
def test_the_command_line_refuses_what_is_no_remote(tmp_path: Path, argv: list[str], said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "--data-dir", str(tmp_path), *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_remote_session_s_terminal_is_routed_there_by_its_id() -> None:
    """terminal.input/resize/close/attach/ack name only the terminal: it lives on the host whose
    session opened it (learnt from terminal.open, terminal.list and its frames)."""
    from contract.terminals import TerminalOutput, TerminalRef
    from host.relay.routes import RouteTable

    routes = RouteTable()
    assert routes.host_of(TerminalRef(terminal_id="t-a")) is None  # unknown: this host's
    routes.record_value(TERMINAL_OPEN.key, {"terminalId": "t-a"}, "h-1")
    routes.record_value(TERMINAL_LIST.key, {"items": [{"terminalId": "t-b"}, "junk"]}, "h-2")
    routes.record_frame(TerminalOutput(terminal_id="t-c", session_id="s-c", seq=1, data=""), "h-3")
    assert [routes.host_of(TerminalRef(terminal_id=t)) for t in ("t-a", "t-b", "t-c", "t-d")] == [
        "h-1",
        "h-2",
        "h-3",
        None,
    ]


async def test_an_unprivileged_caller_s_merged_mux_leaves_out_remote_terminal_output() -> None:
    from contract.file_tree import FilesChanged
    from contract.terminals import TerminalClosed, TerminalOutput
    from host.relay.streams import PRIVILEGED_FRAMES, _without, item

    async def frames():
        yield [
            item("r1", TerminalOutput(terminal_id="t", session_id="s", seq=1, data="eA==")),
            item("r2", FilesChanged(session_id="s", paths=["a"])),
        ]
        yield [item("r3", TerminalClosed(terminal_id="t", session_id="s"))]

    kept = [[i.payload.type for i in batch] async for batch in _without(frames(), PRIVILEGED_FRAMES)]
    assert kept == [["files/changed"]]
