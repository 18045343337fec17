"""Remote hosts over SSH, end to end on a real OpenSSH server on loopback (docs/decisions.md,
"Remote hosts"): a separate user with key authentication, the system's ssh client, the server
brought over the connection and installed from this host's own wheels, a session there driven
through the local host as the window drives it.

The tests of this module share one remote user (its install is what later tests reuse) and run
in order: the first brings the server from nothing.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
import os
import shutil
import signal
import socket
import tempfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract.methods import (
    FILES_REVERT_TURN,
    FILES_SESSION_CHANGES,
    HOST_CREATE_DIRECTORY,
    HOST_LIST_DIRECTORY,
    PERMISSION_SET,
    REMOTE_ADD,
    REMOTE_CONNECT,
    REMOTE_DISCONNECT,
    REMOTE_LIST,
    REMOTE_TEST,
    REMOTE_TRUST_HOST_KEY,
    REMOTE_UPDATE,
    SESSION_CREATE,
    SESSION_DELETE,
    SESSION_FORK,
    SESSION_HISTORY,
    SESSION_IMPORT,
    SESSION_LIST,
    SESSION_PROMPT,
    WORKSPACE_CREATE,
)
from host.engine.settings.files import VERSION as SETTINGS_VERSION
from host.engine.workspaces.remotes import bootstrap
from tests.api.support import event, ftype, raw
from tests.remote.support import (
    CONNECT,
    RECONNECT,
    alive,
    local_host,
    master_pid,
    server_dir,
    server_info,
    until,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer
from tests.support.sshd import Sshd

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def sshd() -> Iterator[Sshd]:
    root = Path(tempfile.mkdtemp(prefix="hd-sshd-", dir="/var/tmp"))  # a remote sandbox hides /tmp
    try:
        with Sshd.start(root, set_env={"HARNESSDESK_DEV_VALIDATE": "1"}) as server:
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bash(call_id: str, command: str) -> Reply:
    return Reply(tool_calls=[(call_id, "bash", json.dumps({"command": command}))])


async def test_a_person_adds_a_server_once_and_works_in_a_session_there(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    known_hosts = sshd.client_home / ".ssh" / "known_hosts"
    sshd.forget()
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target, "name": "box"})).host_id
        listed = (await local.call(REMOTE_LIST)).items
        assert [(h.host_id, h.name, h.mode, h.state) for h in listed] == [
            (host_id, "box", "detached", "disconnected")
        ]

        # an unknown key: refused, shown, recorded only once the person confirms what they saw
        tested = await local.call(REMOTE_TEST, {"hostId": host_id})
        assert not tested.reachable and "not known" in tested.detail
        refused = await local.error(REMOTE_CONNECT, {"hostId": host_id}, "host-key-unknown")
        assert (refused.details.fingerprint, refused.details.key_type) == (sshd.fingerprint, "ED25519")
        assert not known_hosts.exists()
        wrong = {"hostId": host_id, "fingerprint": "SHA256:" + "A" * 43}
        await local.error(REMOTE_TRUST_HOST_KEY, wrong, "host-key-changed")
        assert not known_hosts.exists()
        await local.call(REMOTE_TRUST_HOST_KEY, {"hostId": host_id, "fingerprint": sshd.fingerprint})
        line = known_hosts.read_text().split()
        assert line[0] == f"[127.0.0.1]:{sshd.port}" and line[1] == "ssh-ed25519"

        tested = await local.call(REMOTE_TEST, {"hostId": host_id})
        assert tested.reachable and (tested.latency_ms or 0) > 0
        assert "will be installed" in tested.detail and "bubblewrap" in tested.detail

        # bootstrap from nothing: the server is brought, checked and installed in a versioned folder
        assert not server_dir(sshd).exists()
        connected = await local.client.call(REMOTE_CONNECT, {"hostId": host_id})
        assert connected.result.ok, connected.result
        await local.status(host_id, "connecting", CONNECT)
        await local.status(host_id, "connected", CONNECT)
        installed = [p.name for p in server_dir(sshd).iterdir() if p.name != "run"]
        assert len(installed) == 1 and (server_dir(sshd) / installed[0] / "ready").is_file()
        info = server_info(sshd)
        assert info["mode"] == "detached" and info["version"] == installed[0] and alive(info["pid"])
        run_dir = server_dir(sshd) / "run"
        assert oct(run_dir.stat().st_mode & 0o777) == "0o700"
        assert oct((run_dir / "serve.sock").stat().st_mode & 0o777) == "0o600"
        view = (await local.call(REMOTE_LIST)).items[0]
        assert (view.state, view.sandbox) == ("connected", True)

        # the folder picker lists the remote's folders; a session is made there
        home = await local.call(HOST_LIST_DIRECTORY, {"hostId": host_id})
        assert home.path == str(sshd.home) and ".harnessdesk-server" in [e.name for e in home.entries]
        project = (
            await local.call(HOST_CREATE_DIRECTORY, {"hostId": host_id, "path": home.path, "name": "proj"})
        ).path
        sid = (await local.call(SESSION_CREATE, {"hostId": host_id, "cwd": project})).session_id
        items = (await local.call(SESSION_LIST)).items
        assert [(s.session_id, s.host_id, s.cwd) for s in items] == [(sid, host_id, project)]
        # on the wire: `hostId` on every item, null for one of this host's
        here = (await local.call(SESSION_CREATE, {"cwd": str(tmp_path)})).session_id
        body = json.dumps(
            {"type": "client-request", "rpcId": "r-list", "method": "session.list", "payload": {}}
        ).encode()
        got = await raw(local.client, "POST", "/api/session.list", {"content-type": "application/json"}, body)
        wire = json.loads(got.body)["result"]["value"]["items"]
        assert sorted((i["sessionId"], i["hostId"]) for i in wire) == sorted([(sid, host_id), (here, None)])
        await local.call(SESSION_DELETE, {"sessionId": here})

        # a turn with a tool call and an approval, on the remote, through the window's client
        await local.call(PERMISSION_SET, {"sessionId": sid, "preset": "workspace-write"})
        llm.enqueue(bash("c1", "echo made on $(hostname) by $(id -un) > here.txt"), Reply(text="written"))
        content = [{"type": "text", "text": "write a file"}]
        await local.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
        rpc_id, asked = await local.mux.next(ftype("approval/requested", sid), RECONNECT)
        assert asked.tool_name == "bash"
        answer = {"sessionId": sid, "approvalId": asked.approval_id, "outcome": "allowed-once"}
        receipt = await local.client.respond(rpc_id, {"ok": True, "value": answer})
        assert receipt.accepted, receipt
        await local.mux.next(ftype("approval/resolved", sid), RECONNECT)
        _, ended = await local.mux.next(event("turn/end", sid), RECONNECT)
        assert ended.event.data["reason"] == {"kind": "completed"}
        written = Path(project) / "here.txt"
        assert written.read_text().strip().endswith(f"by {sshd.user}")
        assert written.stat().st_uid == sshd.home.stat().st_uid  # the remote user's, not ours
        history = await local.call(SESSION_HISTORY, {"sessionId": sid})
        kinds = [e.event.type for e in history.events]
        assert kinds.count("tool/result") == 1 and kinds.count("turn/end") == 1
        # the session is the remote's: this host's own store never held it
        assert not await local.runtime.engine.sessions.has_session(sid)

        # disconnected: the row stays (reconnecting means nothing is lost); calls say why
        pid = server_info(sshd)["pid"]
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})
        await local.status(host_id, "disconnected")
        assert [s.host_id for s in (await local.call(SESSION_LIST)).items] == [host_id]
        err = await local.error(SESSION_HISTORY, {"sessionId": sid}, "remote-unavailable")
        assert err.details.host_id == host_id
        assert alive(pid)  # detached: the server goes on without us

        # reuse: the next connection finds the install and the running server
        installed_at = (server_dir(sshd) / installed[0] / "ready").stat().st_mtime_ns
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        assert server_info(sshd)["pid"] == pid
        assert (server_dir(sshd) / installed[0] / "ready").stat().st_mtime_ns == installed_at
        again = await local.call(SESSION_HISTORY, {"sessionId": sid})
        assert [e.event.seq for e in again.events] == [e.event.seq for e in history.events]


async def test_kill_9_of_the_ssh_mid_turn_loses_nothing(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link dies mid-turn: the remote turn completes on its own, the host reconnects by
    itself, and the window's rebuild shows all of it."""
    sshd.trust()
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        sid = (await local.call(SESSION_CREATE, {"hostId": host_id, "cwd": str(sshd.home)})).session_id
        pace = threading.Semaphore(0)
        text = "the remote keeps working while the laptop is away"
        llm.enqueue(Reply(text=text, chunk_size=5, paced=pace))
        content = [{"type": "text", "text": "go"}]
        await local.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
        await local.mux.next(event("assistant/chunk", sid), RECONNECT)
        os.kill(master_pid(local, host_id), signal.SIGKILL)
        await local.status(host_id, "reconnecting")
        for _ in range(len(text)):
            pace.release()  # the rest of the answer reaches the remote host while we are away
        await local.status(host_id, "connected")
        history = await local.call(SESSION_HISTORY, {"sessionId": sid})
        ends = [e.event.data["reason"] for e in history.events if e.event.type == "turn/end"]
        assert ends == [{"kind": "completed"}]
        said = [e.event for e in history.events if e.event.type == "assistant/message"]
        assert said[-1].data["message"]["content"][0]["text"] == text
        # frames flow again on the same local stream (no reconnect of the window's own streams)
        llm.enqueue(Reply(text="and again"))
        await local.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
        _, ended = await local.mux.next(event("turn/end", sid), RECONNECT)
        assert ended.event.data["reason"] == {"kind": "completed"}
        assert not local.mux.ended


async def test_a_session_exported_from_one_host_is_imported_on_another(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sshd.trust()
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        sid = (await local.call(SESSION_CREATE, {"hostId": host_id, "cwd": str(sshd.home)})).session_id
        llm.enqueue(Reply(text="made over there"))
        content = [{"type": "text", "text": "hello there"}]
        await local.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
        await local.mux.next(event("turn/end", sid), RECONNECT)
        got = await raw(local.client, "GET", f"/api/session.export?sessionId={sid}")
        assert got.status == 200 and got.headers["content-type"] == "application/zip"
        with zipfile.ZipFile(io.BytesIO(got.body)) as zf:
            assert "made over there" in zf.read("session.jsonl").decode()
        data = base64.b64encode(got.body).decode()
        # into this computer's host: a copy under new ids, shown as this host's
        folder = tmp_path / "here"
        folder.mkdir()
        workspace = (await local.call(WORKSPACE_CREATE, {"path": str(folder)})).workspace
        imported = await local.call(
            SESSION_IMPORT, {"data": data, "workspaceId": workspace.workspace_id, "asCopy": True}
        )
        mine = imported.session_ids[0]
        assert mine != sid
        rows = {s.session_id: s.host_id for s in (await local.call(SESSION_LIST)).items}
        assert rows[mine] is None and rows[sid] == host_id
        page = await local.call(SESSION_HISTORY, {"sessionId": mine})
        said = [e.event for e in page.events if e.event.type == "assistant/message"]
        assert said[-1].data["message"]["content"][0]["text"] == "made over there"
        # and back to the remote, into a folder there (it is there already: a copy again)
        there = await local.call(WORKSPACE_CREATE, {"hostId": host_id, "path": str(sshd.home)})
        payload = {"data": data, "workspaceId": there.workspace.workspace_id}
        await local.error(SESSION_IMPORT, payload, "session-exists")
        copied = await local.call(SESSION_IMPORT, {**payload, "asCopy": True})
        rows = {s.session_id: s.host_id for s in (await local.call(SESSION_LIST)).items}
        assert rows[copied.session_ids[0]] == host_id
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})


async def test_a_host_connected_when_the_app_closed_is_connected_again_at_start(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sshd.trust()
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target, "name": "kept"})).host_id
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        sid = (await local.call(SESSION_CREATE, {"hostId": host_id, "cwd": str(sshd.home)})).session_id
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:  # the app again
        await local.host.seen(lambda f: ftype("host/remote-status")(f) and f.state == "connected", CONNECT)
        assert sid in {s.session_id for s in (await local.call(SESSION_LIST)).items}
        # an update of the plan reconnects with it
        await local.call(REMOTE_UPDATE, {"hostId": host_id, "name": "renamed"})
        await local.status(host_id, "disconnected")
        await local.status(host_id, "connected")
        assert (await local.call(REMOTE_LIST)).items[0].name == "renamed"
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:  # disconnected: stays so
        assert [h.state for h in (await local.call(REMOTE_LIST)).items] == ["disconnected"]


KEY = "sk-handed-over-0123456789abcdef"


async def stop_running_server(sshd: Sshd) -> None:
    """Stop the detached server an earlier test left there (by its pid), so the next connection
    launches one and hands it this test's settings."""
    pid = server_info(sshd).get("pid")
    if pid is not None and alive(pid):
        os.kill(pid, signal.SIGTERM)
        await until(lambda: not alive(pid), RECONNECT)


def holding(secret: str, *folders: Path, pid: int) -> list[str]:
    """The files under `folders`, and the process's environment and arguments, holding `secret`."""
    places = [p for folder in folders for p in folder.rglob("*") if p.is_file()]
    places += [Path(f"/proc/{pid}/environ"), Path(f"/proc/{pid}/cmdline")]
    return [str(p) for p in places if secret.encode() in p.read_bytes()]


async def turn_text(local: Any, sid: str) -> str:
    """Prompt once; the turn's assistant text once it ended as completed."""
    content = [{"type": "text", "text": "who answers?"}]
    await local.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
    _, ended = await local.mux.next(event("turn/end", sid), RECONNECT)
    assert ended.event.data["reason"] == {"kind": "completed"}, ended.event.data
    history = await local.call(SESSION_HISTORY, {"sessionId": sid})
    said = [e.event for e in history.events if e.event.type == "assistant/message"]
    return str(said[-1].data["message"]["content"][0]["text"])


async def test_a_remote_session_uses_this_computers_model_and_key_or_the_remotes_own(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Default: this computer's model settings and key, handed over the SSH channel and kept in
    the remote server's memory only. `settingsFrom: "remote"`: the remote's own settings.json,
    at once (the running server is relaunched for it)."""
    sshd.trust()
    await stop_running_server(sshd)
    monkeypatch.setenv("HARNESSDESK_API_KEY", KEY)  # this computer's key for its --base-url route
    llm.require_key = KEY
    remote_data = sshd.home / ".local" / "share" / "HarnessDesk"
    with ScriptedLlmServer() as own:
        async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
            host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
            await local.call(REMOTE_CONNECT, {"hostId": host_id})
            handed = server_info(sshd)
            assert handed["settings"] == "handed"
            sid = (await local.call(SESSION_CREATE, {"hostId": host_id, "cwd": str(sshd.home)})).session_id
            llm.enqueue(Reply(text="answered from this computer's provider"))
            assert await turn_text(local, sid) == "answered from this computer's provider"
            # the key reached the remote's provider calls, yet nothing there holds it
            assert holding(KEY, remote_data, server_dir(sshd) / "run", pid=handed["pid"]) == []

            # the remote's own settings: its settings.json, its provider
            document = {
                "version": SETTINGS_VERSION,
                "namespaces": {
                    "llm-openai-compatible": {
                        "profiles": [{"id": "own", "name": "Own", "baseURL": own.base_url}]
                    },
                    "agent-default-model": {"provider": "own", "model": "m"},
                },
            }
            remote_data.mkdir(parents=True, exist_ok=True)
            (remote_data / "settings.json").write_text(json.dumps(document))
            for path in (
                sshd.home / ".local",
                sshd.home / ".local" / "share",
                remote_data,
                remote_data / "settings.json",
            ):
                shutil.chown(path, sshd.user, sshd.user)
            await local.call(REMOTE_UPDATE, {"hostId": host_id, "settingsFrom": "remote"})
            await local.status(host_id, "disconnected")
            await local.status(host_id, "connected", CONNECT)
            relaunched = server_info(sshd)
            assert relaunched["settings"] == "own" and relaunched["pid"] != handed["pid"]
            assert not alive(handed["pid"])
            there = (await local.call(SESSION_CREATE, {"hostId": host_id, "cwd": str(sshd.home)})).session_id
            own.enqueue(Reply(text="answered from the remote's own provider"))
            asked_here = len(llm.requests)
            assert await turn_text(local, there) == "answered from the remote's own provider"
            assert len(llm.requests) == asked_here and own.requests
            await local.call(REMOTE_DISCONNECT, {"hostId": host_id})
    (remote_data / "settings.json").unlink()


async def answered_turn(local: Any, sid: str, text: str, choice: str = "") -> Any:
    """Prompt, allow every approval and pick `choice` for a question, until the turn ends."""
    content = [{"type": "text", "text": text}]
    await local.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
    asked, end = ftype("approval/requested", sid), ftype("question/requested", sid)
    done = event("turn/end", sid)
    while True:
        rpc_id, frame = await local.mux.next(lambda f: asked(f) or end(f) or done(f), RECONNECT)
        if frame.type == "approval/requested":
            value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-once"}
        elif frame.type == "question/requested":
            picked = [{"id": q.id, "selected": [choice]} for q in frame.questions]
            value = {"sessionId": sid, "answer": {"answers": picked}}
        else:
            return frame
        assert (await local.client.respond(rpc_id, {"ok": True, "value": value})).accepted


async def test_questions_changes_revert_and_fork_of_a_remote_session(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same features as a local session, relayed: a question answered from here, the
    Changes view, a turn reverted there, and a fork that lives on the same remote host."""
    sshd.trust()
    project = sshd.home / "changes"
    project.mkdir(exist_ok=True)
    (project / "a.txt").write_text("one\n")
    for path in (project, project / "a.txt"):
        shutil.chown(path, sshd.user, sshd.user)
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        sid = (await local.call(SESSION_CREATE, {"hostId": host_id, "cwd": str(project)})).session_id
        edit = json.dumps({"path": "a.txt", "old_string": "one", "new_string": "two"})
        llm.enqueue(Reply(tool_calls=[("e1", "edit_file", edit)]), Reply(text="edited"))
        ended = await answered_turn(local, sid, "edit it")
        assert ended.event.data["reason"] == {"kind": "completed"}
        assert (project / "a.txt").read_text() == "two\n"
        question = {
            "questions": [{"id": "pick", "question": "Which?", "options": [{"label": "x"}, {"label": "y"}]}]
        }
        llm.enqueue(Reply(tool_calls=[("q1", "ask_user", json.dumps(question))]), Reply(text="picked"))
        ended = await answered_turn(local, sid, "ask me", choice="y")
        assert ended.event.data["reason"] == {"kind": "completed"}
        history = await local.call(SESSION_HISTORY, {"sessionId": sid})
        results = [e.event.data for e in history.events if e.event.type == "tool/result"]
        assert "y" in json.dumps(results[-1])  # the answer given here reached the remote's tool

        changes = await local.call(FILES_SESSION_CHANGES, {"sessionId": sid})
        assert [(f.path, f.status, f.revertable) for f in changes.files] == [("a.txt", "modified", True)]
        first_end = next(e.event.seq for e in history.events if e.event.type == "turn/end")
        fork = (await local.call(SESSION_FORK, {"sessionId": sid, "atSeq": first_end})).session_id
        listed = {s.session_id: s.host_id for s in (await local.call(SESSION_LIST)).items}
        assert listed[fork] == host_id and listed[sid] == host_id
        forked = await local.call(SESSION_HISTORY, {"sessionId": fork})
        assert [e.event.type for e in forked.events].count("turn/end") == 1
        assert not await local.runtime.engine.sessions.has_session(fork)  # it lives there

        reverted = await local.call(FILES_REVERT_TURN, {"sessionId": sid, "turn": 0})
        assert reverted.turn == 0
        assert (project / "a.txt").read_text() == "one\n"
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})


async def test_a_local_and_a_remote_session_stream_at_the_same_time(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both turns stream at once on one window's mux (each has its first delta before either
    ended); each session gets all of its own text, in order, and none of the other's."""
    sshd.trust()
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        there = (await local.call(SESSION_CREATE, {"hostId": host_id, "cwd": str(sshd.home)})).session_id
        here = (await local.call(SESSION_CREATE, {"cwd": str(tmp_path)})).session_id
        texts = {there: "remote " * 400, here: "local " * 400}
        hurry = {sid: threading.Event() for sid in texts}  # slow deltas until told otherwise
        for sid, text in texts.items():
            reply = Reply(text=text, chunk_size=6, delay=0.05, hurry=hurry[sid], when=f"go {sid}")
            llm.enqueue(reply)
        for sid in texts:
            content = [{"type": "text", "text": f"go {sid}"}]
            await local.call(SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
        # `seen`, not `next`: the two streams interleave in no set order, and `next` moves the
        # cursor past the other session's frames. The local turn is let finish first (the order
        # that mostly came anyway) while the remote one still streams, then the remote one.
        try:
            for sid in texts:
                await local.mux.seen(event("assistant/chunk", sid), RECONNECT)
            ended = [f for _, f in local.mux.items if event("turn/end")(f)]
            assert ended == [], "a turn ended before the other streamed"
            for sid in (here, there):
                hurry[sid].set()
                await local.mux.seen(event("turn/end", sid), RECONNECT)
        finally:
            for flag in hurry.values():
                flag.set()
        for sid, text in texts.items():
            said = "".join(
                f.event.data["chunk"]["text"]
                for _, f in local.mux.items
                if event("assistant/chunk", sid)(f) and f.event.data["chunk"].get("type") == "text-delta"
            )
            assert said == text, (sid, len(said))
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})


def ask_over_the_socket(path: Path, token: str) -> bytes:
    """One HTTP request on the remote server's Unix socket, as this process (root): the answer's
    bytes, b"" when the server closed the connection unread."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(str(path))
        body = b'{"type": "client-request", "rpcId": "r", "method": "host.describe", "payload": {}}'
        head = (
            f"POST /api/host.describe HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        try:
            sock.sendall(head.encode() + body)
        except (BrokenPipeError, ConnectionResetError):
            return b""  # closed before the request was even written: unread
        out = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                out += chunk
        return out


async def test_another_user_holding_the_token_is_closed_unread(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The socket's mode keeps other users out; root passes file modes, so the server asks the
    kernel who connected (SO_PEERCRED) and closes any connection not of its own user."""
    sshd.trust()
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        run = server_dir(sshd) / "run"
        token = (run / "token").read_text().strip()
        assert os.geteuid() != (run / "serve.sock").stat().st_uid  # we are not the remote's user
        assert await asyncio.to_thread(ask_over_the_socket, run / "serve.sock", token) == b""
        # the relayed calls, by the remote user's sshd, go on as before
        assert (await local.call(HOST_LIST_DIRECTORY, {"hostId": host_id})).path == str(sshd.home)
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})


async def test_attached_mode_ends_the_server_with_the_ssh_session(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sshd.trust()
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target, "mode": "attached"})).host_id
        before = server_info(sshd).get("pid")
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        info = server_info(sshd)
        assert info["mode"] == "attached" and info["pid"] != before and alive(info["pid"])
        assert before is None or not alive(before)  # the detached one was stopped for it
        assert not (server_dir(sshd) / "run" / "token").exists()  # the token left on stdout only
        os.kill(master_pid(local, host_id), signal.SIGKILL)
        await until(lambda: not alive(info["pid"]), RECONNECT)
        await local.status(host_id, "reconnecting")
        await local.status(host_id, "connected")
        assert alive(server_info(sshd)["pid"]) and server_info(sshd)["pid"] != info["pid"]
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})
        pid = server_info(sshd).get("pid")
        if pid is not None:
            await until(lambda: not alive(pid), RECONNECT)


async def test_a_new_version_installs_beside_and_replaces_the_old(
    sshd: Sshd, llm: ScriptedLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sshd.trust()
    async with local_host(sshd, llm, tmp_path / "data", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        old = server_info(sshd)
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})
    monkeypatch.setattr(bootstrap, "__version__", "0.1.0.post1")  # a new release of this app
    async with local_host(sshd, llm, tmp_path / "data2", monkeypatch) as local:
        host_id = (await local.call(REMOTE_ADD, {"target": sshd.target})).host_id
        await local.call(REMOTE_CONNECT, {"hostId": host_id})
        new = server_info(sshd)
        assert new["version"].startswith("0.1.0.post1-") and new["version"] != old["version"]
        assert not alive(old["pid"])
        assert sorted(p.name for p in server_dir(sshd).iterdir()) == sorted([new["version"], "run"])
        await local.call(REMOTE_DISCONNECT, {"hostId": host_id})
