"""The Changes view over both carriers (docs/architecture.md, "The Changes view"): one diff per
file from the session's start to now across several turns and a shell command; reverting one
hunk or a whole file writes exactly that, is logged as `files/restored`, and a stale view (the
file or the hunk changed since) is refused with `revert-conflict` reason `stale`, writing
nothing."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from contract.methods import FILES_REVERT_FILE, FILES_REVERT_HUNK, FILES_SESSION_CHANGES
from host.engine.files import undo_journal
from tests.api.conftest import Host, open_test_host
from tests.api.file_turns import (
    edit,
    history,
    imported_elsewhere,
    open_session,
    sha,
    shell_turn,
    turn_then_one_held_open,
    turn_writing,
    write,
)
from tests.api.support import Frames, err, ok
from tests.support.scripted_llm import ScriptedLlmServer

LINES = "".join(f"line {i}\n" for i in range(1, 21))


async def three_turns(host: Host, llm: ScriptedLlmServer, client: object, mux: Frames, sid: str) -> list[int]:
    """Turn 1 edits the top of big.txt and writes new.txt; turn 2 edits its bottom; turn 3 (a
    shell command) changes notes.txt and deletes gone.txt."""
    t1 = await turn_writing(
        host,
        llm,
        client,
        mux,
        sid,
        edit("e1", "big.txt", "line 2\n", "line two\n"),
        write("w1", "new.txt", "fresh\n"),
    )
    t2 = await turn_writing(
        host, llm, client, mux, sid, edit("e2", "big.txt", "line 19\n", "line nineteen\n")
    )
    t3 = await shell_turn(host, llm, client, mux, sid, "sed -i 's/colour/color/' notes.txt && rm gone.txt")
    return [t1, t2, t3]


def seed(work: Path) -> None:
    (work / "big.txt").write_text(LINES)
    (work / "notes.txt").write_text("colour\n")
    (work / "gone.txt").write_text("bye\n")
    (work / "same.txt").write_text("untouched\n")


async def test_one_combined_diff_per_file_across_turns_and_a_shell_command(
    host: Host, llm: ScriptedLlmServer
) -> None:
    work = host.workdir
    seed(work)
    client, mux, sid = await open_session(host)
    t1, t2, t3 = await three_turns(host, llm, client, mux, sid)
    value = await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})
    files = {f.path: f for f in value.files}
    assert sorted(files) == ["big.txt", "gone.txt", "new.txt", "notes.txt"]
    big = files["big.txt"]
    assert big.status == "modified" and big.turns == [t1, t2] and big.revertable
    assert big.before is not None
    assert big.after is not None
    assert big.before.sha256 == sha(LINES.encode()) and big.after.sha256 == sha(
        (work / "big.txt").read_bytes()
    )
    assert [h.diff.splitlines()[0] for h in big.hunks] == ["@@ -1,5 +1,5 @@", "@@ -16,5 +16,5 @@"]
    assert "-line 2\n+line two" in big.hunks[0].diff and "-line 19\n+line nineteen" in big.hunks[1].diff
    assert (big.added, big.removed) == (2, 2)
    assert files["new.txt"].status == "added" and files["new.txt"].before is None
    assert files["new.txt"].hunks[0].diff.splitlines() == ["@@ -0,0 +1 @@", "+fresh"]
    assert (
        files["gone.txt"].status == "deleted"
        and files["gone.txt"].after is None
        and files["gone.txt"].turns == [t3]
    )
    assert files["notes.txt"].hunks[0].diff.splitlines() == ["@@ -1 +1 @@", "-colour", "+color"]


async def test_reverting_one_hunk_keeps_the_other_and_is_recorded(host: Host, llm: ScriptedLlmServer) -> None:
    work = host.workdir
    seed(work)
    client, mux, sid = await open_session(host)
    t1, _, _ = await three_turns(host, llm, client, mux, sid)
    [big] = [
        f for f in (await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})).files if f.path == "big.txt"
    ]
    assert big.after is not None
    value = await ok(
        client,
        FILES_REVERT_HUNK,
        {"sessionId": sid, "path": "big.txt", "hunkId": big.hunks[1].id, "current": big.after.sha256},
    )
    expected = LINES.replace("line 2\n", "line two\n")
    assert (work / "big.txt").read_text() == expected
    assert value.file.state is not None
    assert value.file.action == "restored" and value.file.state.sha256 == sha(expected.encode())
    restored = [e for e in await history(client, sid) if e.type == "files/restored"]
    assert [(e.seq, e.data["cause"], e.data["turn"], e.data["files"][0]["path"]) for e in restored] == [
        (value.seq, "revert-hunk", t1, "big.txt")
    ]
    [after] = [
        f for f in (await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})).files if f.path == "big.txt"
    ]
    assert [h.diff for h in after.hunks] == [big.hunks[0].diff]
    # the last hunk: the file is as the session found it, and leaves the list
    assert after.after is not None
    await ok(
        client,
        FILES_REVERT_HUNK,
        {"sessionId": sid, "path": "big.txt", "hunkId": after.hunks[0].id, "current": after.after.sha256},
    )
    assert (work / "big.txt").read_text() == LINES
    assert "big.txt" not in [
        f.path for f in (await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})).files
    ]
    assert not [p for p in work.rglob("*") if ".hd-revert-" in p.name]
    assert not list((host.data_dir / "undo-journal").glob("*.json"))


async def test_a_stale_view_cannot_revert_and_writes_nothing(host: Host, llm: ScriptedLlmServer) -> None:
    work = host.workdir
    seed(work)
    client, mux, sid = await open_session(host)
    await three_turns(host, llm, client, mux, sid)
    [big] = [
        f for f in (await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})).files if f.path == "big.txt"
    ]
    edited = (work / "big.txt").read_text().replace("line 10\n", "line ten, by hand\n")
    (work / "big.txt").write_text(edited)
    for key, extra in ((FILES_REVERT_HUNK, {"hunkId": big.hunks[0].id}), (FILES_REVERT_FILE, {})):
        assert big.after is not None
        payload = {"sessionId": sid, "path": "big.txt", "current": big.after.sha256, **extra}
        error = await err(client, key, payload, "revert-conflict")
        assert error.details["conflicts"] == [{"path": "big.txt", "reason": "stale"}]
    # the right file hash but a hunk that is not in the diff any more
    error = await err(
        client,
        FILES_REVERT_HUNK,
        {
            "sessionId": sid,
            "path": "big.txt",
            "hunkId": big.hunks[0].id.replace(big.hunks[0].id[0], "0"),
            "current": sha(edited.encode()),
        },
        "revert-conflict",
    )
    assert error.details["conflicts"][0]["reason"] == "stale"
    assert (work / "big.txt").read_text() == edited
    assert not [e for e in await history(client, sid) if e.type == "files/restored"]
    # a path the session never changed, and bad input
    await err(
        client,
        FILES_REVERT_FILE,
        {"sessionId": sid, "path": "same.txt", "current": None},
        "revert-unavailable",
    )
    await err(
        client,
        FILES_REVERT_HUNK,
        {"sessionId": sid, "path": "big.txt", "hunkId": "nope", "current": None},
        "bad-request",
    )
    await err(
        client, FILES_REVERT_FILE, {"sessionId": sid, "path": "big.txt", "current": "ABC"}, "bad-request"
    )
    error = await err(client, FILES_REVERT_FILE, {"sessionId": sid, "path": "big.txt"}, "revert-conflict")
    assert error.details["conflicts"] == [{"path": "big.txt", "reason": "stale"}]  # it is not absent
    assert (work / "big.txt").read_text() == edited and (work / "same.txt").read_text() == "untouched\n"


async def test_reverting_whole_files_puts_back_added_deleted_and_edited(
    host: Host, llm: ScriptedLlmServer
) -> None:
    work = host.workdir
    seed(work)
    client, mux, sid = await open_session(host)
    await three_turns(host, llm, client, mux, sid)
    (work / "big.txt").write_text((work / "big.txt").read_text() + "a line by hand\n")  # the view sees it
    files = {f.path: f for f in (await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})).files}
    for path, f in files.items():
        current = f.after.sha256 if f.after else None
        value = await ok(client, FILES_REVERT_FILE, {"sessionId": sid, "path": path, "current": current})
        assert value.file.action == ("removed" if path == "new.txt" else "restored"), path
    assert (work / "big.txt").read_text() == LINES and (work / "notes.txt").read_text() == "colour\n"
    assert (work / "gone.txt").read_text() == "bye\n" and not (work / "new.txt").exists()
    assert (await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})).files == []
    causes = [e.data["cause"] for e in await history(client, sid) if e.type == "files/restored"]
    assert causes == ["revert-file"] * 4


async def test_a_revert_waits_for_a_working_agent(host: Host, llm: ScriptedLlmServer) -> None:
    client, mux, sid = await open_session(host)
    await turn_then_one_held_open(host, llm, client, mux, sid)
    [a] = (await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})).files
    assert a.after is not None
    payload = {"sessionId": sid, "path": "a.txt", "current": a.after.sha256}
    busy = await err(client, FILES_REVERT_FILE, payload, "revert-unavailable")
    assert "working" in busy.details["reason"]
    assert (host.workdir / "a.txt").read_text() == "v1\n"


async def test_an_imported_session_lists_its_files_but_reverts_none(
    tmp_path: Path, llm_server: ScriptedLlmServer
) -> None:
    """The log can be forged: only content this host kept is ever written back."""
    async with imported_elsewhere(tmp_path, llm_server) as (host, sid, work):
        client = host.client()
        [made] = (await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})).files
        assert made.note is not None
        assert (
            made.status == "added"
            and not made.revertable
            and made.hunks == []
            and "no saved copy" in made.note
        )
        # its start ("absent") needs no copy, but only this host's own record is trusted
        assert made.after is not None
        payload = {"sessionId": sid, "path": "made.txt", "current": made.after.sha256}
        refused = await err(client, FILES_REVERT_FILE, payload, "revert-conflict")
        assert refused.details["conflicts"] == [{"path": "made.txt", "reason": "not-saved"}]
        assert (work / "made.txt").read_text() == "by the agent\n"


async def test_a_hunk_revert_a_crash_interrupted_after_its_commit_is_finished_and_logged(
    tmp_path: Path, llm_server: ScriptedLlmServer
) -> None:
    llm_server.reset()
    first = await open_test_host("inprocess", tmp_path, llm_server.base_url)
    try:
        client, mux, sid = await open_session(first)
        (first.workdir / "f.txt").write_text("a\n")
        await turn_writing(first, llm_server, client, mux, sid, write("w1", "f.txt", "b\n"))
        seq = first.engine.parts.store.next_seq(sid)
    finally:
        await first.close()
    # what a revert leaves when killed right after its commit point: staged and committed, not renamed
    journal = undo_journal.Journal(
        id=undo_journal.new_id(),
        session_id=sid,
        turn=0,
        cause="revert-hunk",
        root=await asyncio.to_thread(os.path.realpath, tmp_path / "work"),
        entries=[],
        at_seq={sid: seq},
        files=[{"path": "f.txt", "action": "restored", "state": {"sha256": sha(b"a\n"), "size": 2}}],
    )
    undo_journal.stage(tmp_path / "data", journal, [("f.txt", b"a\n")])
    assert (tmp_path / "work" / "f.txt").read_text() == "b\n"
    again = await open_test_host("inprocess", tmp_path, llm_server.base_url)
    try:
        assert (again.workdir / "f.txt").read_text() == "a\n"
        restored = [e for e in await history(again.client(), sid) if e.type == "files/restored"]
        assert [(e.data["cause"], e.data["files"][0]["path"]) for e in restored] == [("revert-hunk", "f.txt")]
        assert (await ok(again.client(), FILES_SESSION_CHANGES, {"sessionId": sid})).files == []
    finally:
        await again.close()


async def test_a_path_that_cannot_be_read_as_a_file_is_never_written_over(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client, mux, sid = await open_session(host)
    await turn_writing(host, llm, client, mux, sid, write("w1", "a.txt", "v1\n"))
    (host.workdir / "a.txt").unlink()
    (host.workdir / "a.txt").mkdir()  # a folder where the file was
    (host.workdir / "a.txt" / "mine").write_text("kept\n")
    [a] = (await ok(client, FILES_SESSION_CHANGES, {"sessionId": sid})).files
    assert a.note is not None
    assert not a.revertable and a.hunks == [] and "cannot be read" in a.note
    error = await err(client, FILES_REVERT_FILE, {"sessionId": sid, "path": "a.txt"}, "revert-conflict")
    assert error.details["conflicts"] == [{"path": "a.txt", "reason": "changed"}]
    assert (host.workdir / "a.txt" / "mine").read_text() == "kept\n"
