"""Diffs, checkpoints and undo over both carriers (docs/architecture.md, "Checkpoints and undo"):
a file tool's change is a unified diff on the approval and on the result; `files.revertTurn`
puts back what a turn changed and refuses a file changed since; a fork can restore the files;
a rejection's note reaches the agent."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from contract.methods import (
    FILES_RESTORE_PREVIEW,
    FILES_REVERT_TURN,
    SESSION_DELETE,
    SESSION_FORK,
    SESSION_LIST,
)
from contract.rpc import ReceiptRefused
from host.engine.store.sqlite_store import DB_FILE
from tests.api.conftest import Host
from tests.api.file_turns import (
    answer_approvals,
    edit,
    history,
    imported_elsewhere,
    open_session,
    sha,
    turn_then_one_held_open,
    turn_writing,
    write,
)
from tests.api.support import err, event, ftype, ok, prompt
from tests.support.scripted_llm import Reply, ScriptedLlmServer


async def test_overwriting_a_file_shows_a_unified_diff_on_the_approval_and_the_result(
    host: Host, llm: ScriptedLlmServer
) -> None:
    (host.workdir / "notes.txt").write_text("one\ntwo\nthree\n")
    client, mux, sid = await open_session(host)
    llm.enqueue(Reply(tool_calls=[write("w1", "notes.txt", "one\n2\nthree\n")]), Reply(text="done"))
    await prompt(client, sid, "replace two")
    [frame] = await answer_approvals(client, mux, sid, 1)
    preview = frame.preview
    assert preview.path == "notes.txt" and (preview.added, preview.removed) == (1, 1)
    assert preview.before.sha256 == sha("one\ntwo\nthree\n") and preview.after.sha256 == sha(
        "one\n2\nthree\n"
    )
    assert preview.diff.splitlines() == [
        "--- a/notes.txt",
        "+++ b/notes.txt",
        "@@ -1,3 +1,3 @@",
        " one",
        "-two",
        "+2",
        " three",
    ]
    _, result = await mux.next(event("tool/result", sid))
    change = result.event.data["change"]
    assert change["diff"] == preview.diff and change["before"]["sha256"] == sha("one\ntwo\nthree\n")
    await mux.next(event("turn/end", sid))
    asked = next(e for e in await history(client, sid) if e.type == "approval/asked")
    assert asked.data["preview"]["diff"] == preview.diff  # the tool card shows it after a reload too
    tool_message = next(m for m in llm.requests[-1]["messages"] if m["role"] == "tool")
    assert "---" not in tool_message["content"] and "Overwrote notes.txt" in tool_message["content"]


async def test_a_rejection_note_reaches_the_agent_in_the_tool_result(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client, mux, sid = await open_session(host)
    llm.enqueue(Reply(tool_calls=[write("w1", "a.py", "x=1\n")]), Reply(text="understood"))
    await prompt(client, sid, "write a.py")
    rpc_id, frame = await mux.next(ftype("approval/requested", sid))
    base = {"sessionId": sid, "approvalId": frame.approval_id}
    bad = await client.respond(
        rpc_id, {"ok": True, "value": {**base, "outcome": "allowed-once", "note": "hm"}}
    )
    assert bad == ReceiptRefused(reason="bad-response")  # a note goes with a rejection only
    note = "Use tabs, and put it in src/ instead."
    assert (
        await client.respond(rpc_id, {"ok": True, "value": {**base, "outcome": "rejected", "note": note}})
    ).accepted
    _, result = await mux.next(event("tool/result", sid))
    assert note in result.event.data["message"]["content"][0]["content"]
    await mux.next(event("turn/end", sid))
    tool_message = next(m for m in llm.requests[-1]["messages"] if m["role"] == "tool")
    assert tool_message["content"].endswith(f"The user rejected this call. Their note: {note}")
    decided = next(e for e in await history(client, sid) if e.type == "approval/decided")
    assert decided.data == {"id": frame.approval_id, "outcome": "rejected", "note": note}
    assert not (host.workdir / "a.py").exists()


async def test_revert_puts_back_every_file_the_turn_touched_and_says_what(
    host: Host, llm: ScriptedLlmServer
) -> None:
    work = host.workdir
    (work / "a.txt").write_text("original a\n")
    (work / "c.txt").write_text("alpha\nbeta\n")
    client, mux, sid = await open_session(host)
    quiet = await turn_writing(host, llm, client, mux, sid)  # a turn that changes nothing
    turn = await turn_writing(
        host,
        llm,
        client,
        mux,
        sid,
        write("w1", "a.txt", "new a\n"),
        write("w2", "sub/b.txt", "brand new\n"),
        edit("e1", "c.txt", "alpha", "ALPHA"),
        edit("e2", "c.txt", "beta", "BETA"),
    )
    assert (work / "c.txt").read_text() == "ALPHA\nBETA\n"
    with sqlite3.connect(host.data_dir / DB_FILE) as db:  # checkpointed by content, before the change
        kept = dict(db.execute("SELECT sha256, data FROM file_blobs").fetchall())
    assert kept == {sha("original a\n"): b"original a\n", sha("alpha\nbeta\n"): b"alpha\nbeta\n"}

    reverted = await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn})
    assert [(f.path, f.action) for f in reverted.files] == [
        ("a.txt", "restored"),
        ("c.txt", "restored"),
        ("sub/b.txt", "removed"),
    ]
    assert (work / "a.txt").read_text() == "original a\n" and (work / "c.txt").read_text() == "alpha\nbeta\n"
    assert not (work / "sub" / "b.txt").exists()
    _, frame = await mux.next(event("files/restored", sid))
    assert frame.event.seq == reverted.seq and frame.event.data["cause"] == "revert"
    recorded = [e for e in await history(client, sid) if e.type == "files/restored"]
    assert [e.data["turn"] for e in recorded] == [turn]  # history (and a reload) shows it

    again = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn}, "revert-unavailable")
    assert again.details == {
        "sessionId": sid,
        "turn": turn,
        "reason": "that turn's changes were already reverted",
    }
    nothing = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": quiet}, "revert-unavailable")
    assert nothing.details["reason"] == "that turn changed no files"


async def test_revert_refuses_a_file_changed_outside_the_app_and_changes_nothing(
    host: Host, llm: ScriptedLlmServer
) -> None:
    work = host.workdir
    (work / "a.txt").write_text("v0\n")
    client, mux, sid = await open_session(host)
    turn = await turn_writing(
        host, llm, client, mux, sid, write("w1", "a.txt", "v1\n"), write("w2", "b.txt", "b\n")
    )
    (work / "a.txt").write_text("edited by hand\n")
    refused = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn}, "revert-conflict")
    assert refused.details == {"sessionId": sid, "conflicts": [{"path": "a.txt", "reason": "changed"}]}
    assert "a.txt was changed outside HarnessDesk" in refused.message
    assert (work / "a.txt").read_text() == "edited by hand\n" and (work / "b.txt").exists()
    assert not [e for e in await history(client, sid) if e.type == "files/restored"]
    (work / "a.txt").write_text("v1\n")  # put back what the turn left: the revert goes ahead
    done = await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn})
    assert {f.path: f.action for f in done.files} == {"a.txt": "restored", "b.txt": "removed"}
    assert (work / "a.txt").read_text() == "v0\n"


async def test_an_earlier_turn_reverts_after_the_later_one(host: Host, llm: ScriptedLlmServer) -> None:
    work = host.workdir
    client, mux, sid = await open_session(host)
    first = await turn_writing(host, llm, client, mux, sid, write("w1", "a.txt", "v1\n"))
    second = await turn_writing(host, llm, client, mux, sid, write("w2", "a.txt", "v2\n"))
    blocked = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": first}, "revert-conflict")
    assert blocked.details["conflicts"] == [{"path": "a.txt", "reason": "later-turn"}]
    await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": second})
    assert (work / "a.txt").read_text() == "v1\n"
    done = await ok(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": first})
    assert [(f.path, f.action) for f in done.files] == [("a.txt", "removed")]
    assert not (work / "a.txt").exists()


async def test_revert_waits_for_a_working_agent(host: Host, llm: ScriptedLlmServer) -> None:
    client, mux, sid = await open_session(host)
    turn = await turn_then_one_held_open(host, llm, client, mux, sid)
    busy = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": turn}, "revert-unavailable")
    assert "working" in busy.details["reason"]
    assert (host.workdir / "a.txt").read_text() == "v1\n"


async def test_fork_restores_the_files_to_that_point(host: Host, llm: ScriptedLlmServer) -> None:
    work = host.workdir
    client, mux, sid = await open_session(host)
    await turn_writing(host, llm, client, mux, sid, write("w1", "a.txt", "v1\n"))
    anchor = max(e.seq for e in await history(client, sid) if e.type == "turn/end")
    await turn_writing(host, llm, client, mux, sid, write("w2", "a.txt", "v2\n"), write("w3", "n.txt", "n\n"))

    preview = await ok(client, FILES_RESTORE_PREVIEW, {"sessionId": sid, "atSeq": anchor})
    assert [(f.path, f.action) for f in preview.files] == [("a.txt", "restored"), ("n.txt", "removed")]
    assert preview.conflicts == [] and preview.turn == 0

    (work / "n.txt").write_text("mine now\n")
    refused = await err(
        client, SESSION_FORK, {"sessionId": sid, "atSeq": anchor, "restoreFiles": True}, "revert-conflict"
    )
    assert refused.details["conflicts"] == [{"path": "n.txt", "reason": "changed"}]
    assert len((await ok(client, SESSION_LIST, {})).items) == 1  # no fork was made
    assert (work / "a.txt").read_text() == "v2\n"

    (work / "n.txt").write_text("n\n")
    child = (
        await ok(client, SESSION_FORK, {"sessionId": sid, "atSeq": anchor, "restoreFiles": True})
    ).session_id
    assert (work / "a.txt").read_text() == "v1\n" and not (work / "n.txt").exists()
    [in_child] = [e for e in await history(client, child) if e.type == "files/restored"]
    assert in_child.data["cause"] == "fork" and in_child.data["forkSessionId"] == sid
    assert {f["path"]: f["action"] for f in in_child.data["files"]} == {
        "a.txt": "restored",
        "n.txt": "removed",
    }
    [in_parent] = [e for e in await history(client, sid) if e.type == "files/restored"]
    assert in_parent.data["forkSessionId"] == child
    plain = (await ok(client, SESSION_FORK, {"sessionId": sid, "atSeq": anchor})).session_id
    assert plain not in (sid, child) and (work / "a.txt").read_text() == "v1\n"  # a plain fork writes nothing


async def test_a_deleted_session_takes_its_unshared_checkpoints(host: Host, llm: ScriptedLlmServer) -> None:
    (host.workdir / "a.txt").write_text("v0\n")
    client, mux, sid = await open_session(host)
    await turn_writing(host, llm, client, mux, sid, write("w1", "a.txt", "v1\n"))
    child = (await ok(client, SESSION_FORK, {"sessionId": sid})).session_id

    def kept() -> list[str]:
        with sqlite3.connect(host.data_dir / DB_FILE) as db:
            return [r[0] for r in db.execute("SELECT sha256 FROM file_blobs")]

    assert kept() == [sha("v0\n")]
    await ok(client, SESSION_DELETE, {"sessionId": sid})
    assert kept() == [sha("v0\n")]  # the fork still relies on it
    done = await ok(client, FILES_REVERT_TURN, {"sessionId": child, "turn": 0})
    assert [(f.path, f.action) for f in done.files] == [("a.txt", "restored")]
    assert (host.workdir / "a.txt").read_bytes() == b"v0\n"
    await ok(client, SESSION_DELETE, {"sessionId": child})
    assert kept() == []


async def test_an_imported_log_cannot_revert_anything(tmp_path: Path, llm_server: ScriptedLlmServer) -> None:
    """The log is portable and can be forged: a revert trusts only checkpoints this host kept."""
    async with imported_elsewhere(tmp_path, llm_server) as (host, sid, work):
        client = host.client()
        refused = await err(client, FILES_REVERT_TURN, {"sessionId": sid, "turn": 0}, "revert-conflict")
        assert refused.details["conflicts"] == [{"path": "made.txt", "reason": "not-saved"}]
        assert (work / "made.txt").read_text() == "by the agent\n"
