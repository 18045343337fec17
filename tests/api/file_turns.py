"""Turns that change files, shared by the undo and Changes suites (tests/api/test_undo.py,
test_undo_shell.py, test_changes.py, tests/security/test_revert_symlink.py): the scripted model's
file and shell calls, a turn whose every call is approved once, a turn held open at its approval,
and a session carried to another host by export and import."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from contract.methods import SESSION_HISTORY
from tests.api.conftest import Host, open_test_host
from tests.api.support import Frames, event, ftype, ok, page_events, prompt, raw, run_main
from tests.support.scripted_llm import Reply, ScriptedLlmServer

Call = tuple[str, str, str]
"""(call id, tool name, arguments JSON) of one scripted tool call."""


def write(call_id: str, path: str, content: str) -> Call:
    return (call_id, "write_file", json.dumps({"path": path, "content": content}))


def edit(call_id: str, path: str, old: str, new: str) -> Call:
    return (call_id, "edit_file", json.dumps({"path": path, "old_string": old, "new_string": new}))


def bash(call_id: str, command: str) -> Call:
    return (call_id, "bash", json.dumps({"command": command}))


def sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


async def open_session(host: Host) -> tuple[Any, Frames, str]:
    """A client, its mux and a new session: where nearly every test here starts."""
    client = host.client()
    mux = await host.mux(client)
    return client, mux, await host.create()


async def answer_approvals(client: Any, mux: Frames, sid: str, count: int, **answer: Any) -> list[Any]:
    """Answer the next `count` approval requests (default: allowed once); returns their frames."""
    frames = []
    for _ in range(count):
        rpc_id, frame = await mux.next(ftype("approval/requested", sid))
        value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-once", **answer}
        receipt = await client.respond(rpc_id, {"ok": True, "value": value})
        assert receipt.accepted, receipt
        frames.append(frame)
    return frames


async def turn_writing(
    host: Host, llm: ScriptedLlmServer, client: Any, mux: Frames, sid: str, *calls: Call
) -> int:
    """One turn whose model makes `calls` (each approved once); returns the turn's number."""
    llm.enqueue(*([Reply(tool_calls=list(calls))] if calls else []), Reply(text="done"))
    return await approved_turn(client, mux, sid, "change the files", len(calls))


async def shell_turn(
    host: Host, llm: ScriptedLlmServer, client: Any, mux: Any, sid: str, *commands: str
) -> int:
    """One turn whose model runs each of `commands` through `bash` (one call a step, approved)."""
    calls = [bash(f"b{i}", c) for i, c in enumerate(commands)]
    llm.enqueue(*[Reply(tool_calls=[c]) for c in calls], Reply(text="done"))
    return await approved_turn(client, mux, sid, "tidy up with the shell", len(calls))


async def approved_turn(client: Any, mux: Frames, sid: str, words: str, approvals: int) -> int:
    """Prompt `words`, approve the next `approvals` calls once each, and wait for the turn to
    complete (the script is already enqueued); returns the turn's number."""
    await prompt(client, sid, words)
    await answer_approvals(client, mux, sid, approvals)
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"] == {"kind": "completed"}
    return int(end.event.data["turn"])


async def turn_then_one_held_open(
    host: Host, llm: ScriptedLlmServer, client: Any, mux: Frames, sid: str
) -> int:
    """A turn that writes a.txt ("v1"), then the next turn waiting at its approval (the agent is
    working); returns the first turn's number."""
    turn = await turn_writing(host, llm, client, mux, sid, write("w1", "a.txt", "v1\n"))
    llm.enqueue(Reply(tool_calls=[write("w2", "b.txt", "b\n")]), Reply(text="done"))
    await prompt(client, sid, "more")
    await mux.next(ftype("approval/requested", sid))  # the next turn is open, waiting for us
    return turn


async def history(client: Any, sid: str) -> list[Any]:
    return page_events(await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 10_000}))


@contextlib.asynccontextmanager
async def imported_elsewhere(
    tmp_path: Path, llm_server: ScriptedLlmServer
) -> AsyncIterator[tuple[Host, str, Path]]:
    """A session whose one turn wrote made.txt on host `a`, exported, and imported by the CLI on
    host `b` into another folder that holds made.txt as the log says the turn left it; yields
    (host b, the session's id, that folder)."""
    llm_server.reset()
    source = await open_test_host("inprocess", tmp_path / "a", llm_server.base_url)
    try:
        client, mux, sid = await open_session(source)
        await turn_writing(source, llm_server, client, mux, sid, write("w1", "made.txt", "by the agent\n"))
        archive = (await raw(client, "GET", f"/api/session.export?sessionId={sid}")).body
    finally:
        await source.close()
    (tmp_path / "s.zip").write_bytes(archive)
    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "made.txt").write_text("by the agent\n")  # the content the log says the turn left
    data = tmp_path / "b" / "data"
    imported = run_main("import", str(tmp_path / "s.zip"), "--cwd", str(work), "--data-dir", str(data))
    assert imported.returncode == 0, imported.stderr
    host = await open_test_host("inprocess", tmp_path / "b", llm_server.base_url, data_dir=data)
    try:
        yield host, sid, work
    finally:
        await host.close()
