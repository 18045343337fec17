"""`session.delete` over both carriers, and the first-start grouping of existing sessions.

Delete removes the log, its search rows, blobs no other session uses and its workspace/archive
entries, then says `host/session-removed`; it refuses a working session. The bootstrap test
builds a data dir the way an older HarnessDesk left it (no registry tables) and reopens it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from contract.methods import (
    HOST_DESCRIBE,
    SESSION_ATTACHMENT,
    SESSION_CANCEL,
    SESSION_CREATE,
    SESSION_DELETE,
    SESSION_FORK,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_PROMPT,
    SESSION_SEARCH,
    WORKSPACE_ARCHIVE_SESSION,
    WORKSPACE_CREATE,
    WORKSPACE_LIST,
)
from tests.api.conftest import Host, open_test_host
from tests.api.support import err, event, eventually, ftype, image_input, ok, page_events, png, run_turn, text
from tests.support.engine import agent_of
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def db_rows(host: Host, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(host.data_dir / "harnessdesk.sqlite3") as db:
        return db.execute(sql, args).fetchall()


async def test_delete_removes_the_session_and_what_only_it_used(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="a unicorn answer"), Reply(text="fine"))
    client = host.client()
    mux = await host.mux(client)
    hosts = await host.host_stream(client)
    path = host.workdir / "proj"
    path.mkdir()
    ws = (await ok(client, WORKSPACE_CREATE, {"path": str(path)})).workspace
    sid = (await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id})).session_id
    image = png(4, 4)
    content = [*text("describe this unicorn"), image_input(image)]
    await ok(client, SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
    _, user = await mux.next(event("user/message", sid))
    blob = user.event.data["content"][1]["attachment"]["attachmentId"]
    await mux.next(event("turn/end", sid))
    other = await host.create()
    await run_turn(client, mux, other, "something else")
    await ok(client, WORKSPACE_ARCHIVE_SESSION, {"sessionId": sid})
    assert (await ok(client, SESSION_SEARCH, {"query": "unicorn"})).items

    assert (await ok(client, SESSION_DELETE, {"sessionId": sid})).deleted is True
    _, removed = await hosts.next(ftype("host/session-removed"))
    assert removed.session_id == sid
    assert sid not in [s.session_id for s in (await ok(client, SESSION_LIST)).items]
    listed = await ok(client, WORKSPACE_LIST)
    assert listed.items[0].session_ids == [] and listed.archived_session_ids == []
    assert (await ok(client, SESSION_SEARCH, {"query": "unicorn"})).items == []
    await err(client, SESSION_HISTORY, {"sessionId": sid}, "session-not-found")
    for table, column in (("events", "session_id"), ("sessions", "id"), ("message_text", "session_id")):
        assert db_rows(host, f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", sid) == [(0,)]
    assert db_rows(host, "SELECT COUNT(*) FROM attachments WHERE id = ?", blob) == [(0,)]
    assert db_rows(host, "SELECT COUNT(*) FROM workspace_sessions") == [(0,)]
    # the frames that converge every other window
    changed = [f for f in hosts.frames if f.type == "host/workspace-changed"]
    assert changed[-1].workspace.session_ids == []
    archived = [f for f in hosts.frames if f.type == "host/archived-sessions-changed"]
    assert archived[-1].archived_session_ids == []
    # another session is untouched, and deleting again is session-not-found
    assert page_events(await ok(client, SESSION_HISTORY, {"sessionId": other}))
    error = await err(client, SESSION_DELETE, {"sessionId": sid}, "session-not-found")
    assert error.details == {"sessionId": sid}


async def test_a_blob_another_session_uses_stays(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="seen"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    content = [*text("look"), image_input(png(5, 5))]
    await ok(client, SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
    _, user = await mux.next(event("user/message", sid))
    blob = user.event.data["content"][1]["attachment"]["attachmentId"]
    await mux.next(event("turn/end", sid))
    child = (await ok(client, SESSION_FORK, {"sessionId": sid})).session_id
    await ok(client, SESSION_DELETE, {"sessionId": sid})
    kept = await ok(client, SESSION_ATTACHMENT, {"sessionId": child, "attachmentId": blob})
    assert kept.attachment.attachment_id == blob
    summaries = {s.session_id: s for s in (await ok(client, SESSION_LIST)).items}
    assert summaries[child].parent_session_id == sid  # the child keeps its lineage
    await ok(client, SESSION_DELETE, {"sessionId": child})
    assert db_rows(host, "SELECT COUNT(*) FROM attachments") == [(0,)]


async def test_a_working_session_is_not_deleted(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="this takes a while " * 10, hang_after=2))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await ok(client, SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": text("go")})
    await mux.next(event("assistant/chunk", sid))
    error = await err(client, SESSION_DELETE, {"sessionId": sid}, "agent-busy")
    assert error.details["reason"]
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    await mux.next(event("turn/end", sid))
    assert await eventually(lambda: not agent_of(host.engine, sid).running)  # the drain settles
    assert (await ok(client, SESSION_DELETE, {"sessionId": sid})).deleted is True
    assert (await ok(client, HOST_DESCRIBE)).attached_sessions == 0


async def test_a_blank_session_is_deleted_too(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    await ok(client, SESSION_DELETE, {"sessionId": sid})
    assert (await ok(client, SESSION_LIST)).items == []
    await err(client, SESSION_DELETE, {"sessionId": ""}, "bad-request")


async def test_first_start_groups_existing_sessions_by_folder(
    carrier: str, tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(*[Reply(text=f"answer {i}") for i in range(5)])
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    old = await open_test_host(carrier, tmp_path, llm.base_url)
    client = old.client()
    mux = await old.mux(client)
    made = {}
    for name, cwd in (("a1", alpha), ("b1", beta), ("a2", alpha), ("gone", tmp_path / "gone")):
        made[name] = await old.create(cwd)
        await run_turn(client, mux, made[name], f"turn in {name}")
    await old.close()
    os.rmdir(tmp_path / "gone")
    # What a data dir from before the registry looks like: no registry tables, no mark.
    with sqlite3.connect(old.data_dir / "harnessdesk.sqlite3") as db:
        for table in ("workspaces", "workspace_sessions", "archived_sessions"):
            db.execute(f"DROP TABLE {table}")
        db.execute("DELETE FROM meta WHERE key = 'workspaces_bootstrapped'")

    host = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=old.data_dir)
    try:
        client = host.client()
        listed = await ok(client, WORKSPACE_LIST)
        by_path = {w.path: w for w in listed.items}
        assert set(by_path) == {str(alpha), str(beta)}  # a folder that is gone gets no workspace
        assert [w.path for w in listed.items] == [str(alpha), str(beta)]  # newest activity first
        assert by_path[str(alpha)].session_ids == [made["a2"], made["a1"]]
        assert by_path[str(alpha)].title == "alpha"
        # Only the first start groups: a session created later with a cwd alone stays Ungrouped.
        later = (await ok(client, SESSION_CREATE, {"cwd": str(alpha)})).session_id
        await run_turn(client, await host.mux(client), later, "a later turn")  # persisted
        await host.close()
        host = await open_test_host(carrier, tmp_path, llm.base_url, data_dir=old.data_dir)
        again = await ok(host.client(), WORKSPACE_LIST)
        assert again == listed and later not in again.items[0].session_ids
        assert later in [s.session_id for s in (await ok(host.client(), SESSION_LIST)).items]
    finally:
        await host.close()


async def test_a_deleted_session_leaves_nothing_of_its_agent_in_the_host(
    host: Host, llm: ScriptedLlmServer
) -> None:
    """Its permissions and log were held for good after the agent went (issue 48, memory: the
    RSS after closing sessions did not come back)."""
    llm.enqueue(Reply(text="fine"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "hello")
    pool = host.engine.parts.pool
    held = pool._permissions._open
    assert sid in pool.agents and sid in held
    await ok(client, SESSION_DELETE, {"sessionId": sid})
    assert sid not in pool.agents
    assert sid not in held
