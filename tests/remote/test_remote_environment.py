"""What the remote machine and the person's keys decide (docs/decisions.md, "Remote hosts"): a
remote without the sandbox offers no sandboxed mode there; a key behind a passphrase is asked
for in the window (SSH_ASKPASS), never stored, and with nobody to ask ssh asks nothing."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from contract.methods import (
    REMOTE_ADD,
    REMOTE_CONNECT,
    REMOTE_DISCONNECT,
    REMOTE_LIST,
    REMOTE_TEST,
    REMOTE_TRUST_HOST_KEY,
    SESSION_CREATE,
    SESSION_HISTORY,
)
from tests.api.support import ftype
from tests.remote.support import CONNECT, local_host
from tests.support.scripted_llm import ScriptedLlmServer
from tests.support.sshd import Sshd

pytestmark = pytest.mark.timeout(900)
PASSPHRASE = "correct horse battery staple"


@pytest.fixture(scope="module")
def sshd() -> Iterator[Sshd]:
    root = Path(tempfile.mkdtemp(prefix="hd-sshd-", dir="/var/tmp"))
    env = {"HARNESSDESK_SANDBOX": "none", "HARNESSDESK_DEV_VALIDATE": "1"}  # no bubblewrap there
    try:
        with Sshd.start(root, set_env=env, passphrase=PASSPHRASE) as server:
            server.trust()
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def test_a_passphrase_is_asked_in_the_window_and_a_remote_without_the_sandbox_offers_none(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
        task = asyncio.ensure_future(local.client.call(REMOTE_CONNECT, {"hostId": host_id}))
        rpc_id, asked = await local.host.next(ftype("remote/secret-requested"), CONNECT)
        assert asked.host_id == host_id and "passphrase" in asked.prompt.lower() and not asked.echo
        # a wrong host's answer and a malformed one are refused; the request stays
        wrong = await local.client.respond(
            rpc_id, {"ok": True, "value": {"hostId": "h-other", "secret": "x"}}
        )
        assert (wrong.accepted, getattr(wrong, "reason", None)) == (False, "bad-response")
        answer = {"hostId": host_id, "secret": PASSPHRASE}
        assert (await local.client.respond(rpc_id, {"ok": True, "value": answer})).accepted
        await local.host.next(lambda f: ftype("remote/secret-resolved")(f) and f.request_rpc_id == rpc_id)
        connected = await asyncio.wait_for(task, CONNECT)
        assert connected.result.ok, connected.result
        # nothing of the passphrase was kept: not in the data folder, not in the hosts file
        for path in local.data_dir.rglob("*"):
            if path.is_file():
                assert PASSPHRASE.encode() not in path.read_bytes(), path

        view = (await local.call(REMOTE_LIST)).items[0]
        assert (view.state, view.sandbox) == ("connected", False)
        sid = (await local.call(SESSION_CREATE, {"hostId": host_id, "cwd": str(sshd.home)})).session_id
        page = await local.call(SESSION_HISTORY, {"sessionId": sid})
        assert page.projections is not None
        permissions = page.projections.values["permissions"]
        assert permissions["sandbox"]["kind"] == "none"
        offered = [o["value"] for o in permissions["options"]]
        assert "auto" not in offered and permissions["currentValue"] != "auto", (
            offered
        )  # Auto is the sandboxed one
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})


async def test_with_nobody_to_answer_ssh_asks_nothing(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        await local.host.close()  # no window listens on the host stream: BatchMode
        # sees the host's frames as its own followers do, and is not counted as a listener
        seen = local.runtime.engine.parts.bus.subscribe("host", counted=False)
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
        failed = await local.error(REMOTE_CONNECT, {"hostId": host_id}, "remote-connect-failed")
        assert failed.details.stage == "ssh" and "Permission denied" in failed.message
        # refused at once, not after the passphrase prompt waited its bound for nobody
        assert not [f for _, f in seen.take() if ftype("remote/secret-requested")(f)]


async def test_a_changed_host_key_is_never_accepted(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """known_hosts records another key for the host (a reinstall, or someone in between): connect
    and trust both answer host-key-changed, and known_hosts is left exactly as it was."""
    known = sshd.client_home / ".ssh" / "known_hosts"
    before = known.read_bytes()
    other = tmp_path / "other"
    argv = ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)]
    await asyncio.to_thread(subprocess.run, argv, check=True)
    kind, blob = other.with_suffix(".pub").read_text().split()[:2]
    known.write_text(f"[127.0.0.1]:{sshd.port} {kind} {blob}\n")
    recorded = known.read_bytes()
    try:
        async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
            host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
            changed = await local.error(REMOTE_CONNECT, {"hostId": host_id}, "host-key-changed")
            assert changed.details.key_type == "ED25519" and changed.details.fingerprint == sshd.fingerprint
            assert "never accepts a changed key" in changed.message
            trust = {"hostId": host_id, "fingerprint": sshd.fingerprint}
            await local.error(REMOTE_TRUST_HOST_KEY, trust, "host-key-changed")
            assert known.read_bytes() == recorded
            view = (await local.call(REMOTE_LIST)).items[0]
            assert view.state == "failed"
    finally:
        known.write_bytes(before)


@pytest.fixture(scope="module")
def bare_sshd() -> Iterator[Sshd]:
    """A remote whose PATH holds a shell's few tools and no Python at all."""
    root = Path(tempfile.mkdtemp(prefix="hd-sshd-", dir="/var/tmp"))
    tools = root / "bin"
    tools.mkdir(parents=True)
    for name in ("uname", "sed", "cat", "sh", "id"):
        (tools / name).symlink_to(shutil.which(name) or f"/bin/{name}")
    tools.chmod(0o755)
    root.chmod(0o755)
    try:
        with Sshd.start(root, set_env={"PATH": str(tools)}) as server:
            server.trust()
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def test_a_remote_without_python_gets_one_sentence(
    bare_sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with local_host(bare_sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": bare_sshd.target})).host_id
        tested = await local.call(REMOTE_TEST, {"hostId": host_id})
        assert not tested.reachable or "Python" in tested.detail
        failed = await local.error(REMOTE_CONNECT, {"hostId": host_id}, "remote-connect-failed")
        assert failed.details.stage == "bootstrap"
        assert failed.message == "The remote has no Python 3; HarnessDesk's server needs Python 3.11 there."
        assert not (bare_sshd.home / ".harnessdesk-server").exists()  # nothing was copied there
        view = (await local.call(REMOTE_LIST)).items[0]
        assert (view.state, view.detail) == ("failed", failed.message)
