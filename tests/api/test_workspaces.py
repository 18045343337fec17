"""`workspace.*`, `session.create {workspaceId}` and fork joining a workspace, over both carriers.

Every rule of docs/decisions.md "Workspaces" that a client can observe: canonical paths, one
registration per path, prepend order, titles, unregister-only delete, manual order, the archive
set, attach failures, and the frames (`host/workspace-changed`, `host/workspace-removed`,
`host/archived-sessions-changed`) that say a change is durable.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

from contract.methods import (
    SESSION_CREATE,
    SESSION_FORK,
    SESSION_LIST,
    WORKSPACE_ARCHIVE_SESSION,
    WORKSPACE_CREATE,
    WORKSPACE_DELETE,
    WORKSPACE_INSERT_SESSION_BEFORE,
    WORKSPACE_LIST,
    WORKSPACE_RENAME,
    WORKSPACE_UNARCHIVE_SESSION,
)
from tests.api.conftest import Host
from tests.api.support import err, ftype, ok, run_turn
from tests.support.scripted_llm import Reply, ScriptedLlmServer

UNKNOWN_WS = "00000000-0000-4000-8000-000000000000"


def project(host: Host, name: str) -> Path:
    path = host.workdir / name
    path.mkdir(parents=True, exist_ok=True)
    return Path(os.path.realpath(path))


async def listing(host: Host) -> Any:
    return await ok(host.client(), WORKSPACE_LIST)


async def test_create_canonicalises_and_registers_each_path_once(host: Host) -> None:
    client = host.client()
    hosts = await host.host_stream(client)
    alpha, beta = project(host, "alpha"), project(host, "beta")
    link = host.workdir / "alpha-link"
    link.symlink_to(alpha)

    first = await ok(client, WORKSPACE_CREATE, {"path": str(alpha)})
    assert first.created is True
    ws = first.workspace
    assert (ws.path, ws.title, ws.session_ids) == (str(alpha), "alpha", [])
    assert ws.created_at == ws.updated_at and ws.created_at.endswith("Z")
    _, frame = await hosts.next(ftype("host/workspace-changed"))
    assert frame.workspace.workspace_id == ws.workspace_id

    for spelling in (f"{alpha}/", f"{alpha}/../alpha", str(link)):
        again = await ok(client, WORKSPACE_CREATE, {"path": spelling})
        assert again.created is False and again.workspace.workspace_id == ws.workspace_id

    second = (await ok(client, WORKSPACE_CREATE, {"path": str(beta)})).workspace
    listed = await listing(host)
    assert [w.workspace_id for w in listed.items] == [second.workspace_id, ws.workspace_id]  # prepended
    assert listed.archived_session_ids == []
    await asyncio.sleep(0.2)
    changed = [f for f in hosts.frames if f.type == "host/workspace-changed"]
    assert len(changed) == 2  # the adoptions wrote nothing and said nothing


async def test_two_concurrent_creates_give_one_registration(host: Host) -> None:
    path = project(host, "race")
    a, b = host.client(), host.client()
    first, second = await asyncio.gather(
        ok(a, WORKSPACE_CREATE, {"path": str(path)}), ok(b, WORKSPACE_CREATE, {"path": str(path)})
    )
    assert sorted([first.created, second.created]) == [False, True]
    assert first.workspace.workspace_id == second.workspace.workspace_id
    assert len((await listing(host)).items) == 1


async def test_create_refuses_what_is_not_an_existing_directory(host: Host) -> None:
    client = host.client()
    hosts = await host.host_stream(client)
    a_file = host.workdir / "notes.txt"
    a_file.write_text("x")
    for path in (str(host.workdir / "missing"), str(a_file), "relative/dir", "."):
        error = await err(client, WORKSPACE_CREATE, {"path": path}, "workspace-invalid-path")
        assert error.details == {"path": path}
    assert not (host.workdir / "missing").exists()  # no mkdir
    await err(client, WORKSPACE_CREATE, {"path": ""}, "bad-request")
    assert (await listing(host)).items == []
    await asyncio.sleep(0.2)
    assert hosts.frames == []


async def test_rename_titles_conflicts_and_no_op(host: Host) -> None:
    client = host.client()
    a = (await ok(client, WORKSPACE_CREATE, {"path": str(project(host, "one/app"))})).workspace
    b = (await ok(client, WORKSPACE_CREATE, {"path": str(project(host, "two/app"))})).workspace
    assert a.title == b.title == "app"  # same basename: duplicate default titles are fine

    renamed = await ok(client, WORKSPACE_RENAME, {"workspaceId": a.workspace_id, "title": "  Client app "})
    assert renamed.workspace.title == "Client app" and renamed.workspace.updated_at >= a.updated_at
    error = await err(
        client,
        WORKSPACE_RENAME,
        {"workspaceId": b.workspace_id, "title": " Client app"},
        "workspace-name-conflict",
    )
    assert error.details == {"name": "Client app"}
    same = await ok(client, WORKSPACE_RENAME, {"workspaceId": a.workspace_id, "title": "Client app"})
    assert same.workspace.updated_at == renamed.workspace.updated_at  # nothing written
    await err(client, WORKSPACE_RENAME, {"workspaceId": a.workspace_id, "title": "   "}, "bad-request")
    error = await err(
        client, WORKSPACE_RENAME, {"workspaceId": UNKNOWN_WS, "title": "x"}, "workspace-not-found"
    )
    assert error.details == {"workspaceId": UNKNOWN_WS}
    again = await ok(client, WORKSPACE_CREATE, {"path": a.path})
    assert again.workspace.title == "Client app"  # adopting never resets a renamed title


async def test_delete_unregisters_only(host: Host) -> None:
    client = host.client()
    hosts = await host.host_stream(client)
    path = project(host, "keep")
    ws = (await ok(client, WORKSPACE_CREATE, {"path": str(path)})).workspace
    sid = (await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id})).session_id
    assert (await ok(client, WORKSPACE_DELETE, {"workspaceId": ws.workspace_id})).deleted is True
    _, removed = await hosts.next(ftype("host/workspace-removed"))
    assert removed.workspace_id == ws.workspace_id
    assert path.is_dir() and sid in [s.session_id for s in (await ok(client, SESSION_LIST)).items]
    assert (await listing(host)).items == []
    error = await err(client, WORKSPACE_DELETE, {"workspaceId": ws.workspace_id}, "workspace-not-found")
    assert error.details == {"workspaceId": ws.workspace_id}
    fresh = (await ok(client, WORKSPACE_CREATE, {"path": str(path)})).workspace
    assert fresh.workspace_id != ws.workspace_id and fresh.session_ids == []  # old sessions not re-adopted


async def test_session_create_in_a_workspace(host: Host) -> None:
    client = host.client()
    hosts = await host.host_stream(client)
    path = project(host, "proj")
    ws = (await ok(client, WORKSPACE_CREATE, {"path": str(path)})).workspace
    await hosts.next(ftype("host/workspace-changed"))

    first = (await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id})).session_id
    _, frame = await hosts.next(ftype("host/workspace-changed"))
    assert frame.workspace.session_ids == [first]
    second = await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id, "sessionId": "s-pre-2"})
    again = await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id, "sessionId": "s-pre-2"})
    assert second.session_id == again.session_id == "s-pre-2"  # idempotent, attached once
    summaries = {s.session_id: s for s in (await ok(client, SESSION_LIST)).items}
    assert summaries[first].cwd == str(path) and summaries["s-pre-2"].cwd == str(path)
    assert (await listing(host)).items[0].session_ids == ["s-pre-2", first]  # attach prepends

    loose = (await ok(client, SESSION_CREATE, {"cwd": str(path)})).session_id
    assert loose not in (await listing(host)).items[0].session_ids  # a cwd alone stays Ungrouped

    error = await err(client, SESSION_CREATE, {"workspaceId": UNKNOWN_WS}, "workspace-not-found")
    assert error.details == {"workspaceId": UNKNOWN_WS}
    await err(client, SESSION_CREATE, {"workspaceId": ws.workspace_id, "cwd": str(path)}, "bad-request")
    await err(client, SESSION_CREATE, {"cwd": "relative/dir"}, "bad-request")
    assert len((await ok(client, SESSION_LIST)).items) == 3  # the refused calls created nothing


async def test_a_new_session_creates_its_missing_folder(host: Host) -> None:
    client = host.client()
    target = host.workdir / "new" / "deep"
    await ok(client, SESSION_CREATE, {"cwd": str(target)})
    assert target.is_dir()


async def test_attach_failure_leaves_the_session_published(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="answer"))
    client = host.client()
    mux = await host.mux(client)
    path = project(host, "moved")
    ws = (await ok(client, WORKSPACE_CREATE, {"path": str(path)})).workspace
    source = (await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id})).session_id
    await run_turn(client, mux, source, "hello")
    # The folder is replaced by a link to another one: new sessions there resolve elsewhere.
    elsewhere = project(host, "elsewhere")
    shutil.rmtree(path)
    path.symlink_to(elsewhere)

    error = await err(client, SESSION_CREATE, {"workspaceId": ws.workspace_id}, "workspace-attach-failed")
    created = error.details["sessionId"]
    assert error.details == {"sessionId": created, "workspaceId": ws.workspace_id}
    assert created in [s.session_id for s in (await ok(client, SESSION_LIST)).items]

    error = await err(client, SESSION_FORK, {"sessionId": source}, "workspace-attach-failed")
    child = error.details["sessionId"]
    assert child != source and error.details["workspaceId"] == ws.workspace_id
    assert child in [s.session_id for s in (await ok(client, SESSION_LIST)).items]
    assert (await listing(host)).items[0].session_ids == [source]


async def test_fork_joins_the_source_workspace(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="answer"), Reply(text="loose answer"))
    client = host.client()
    mux = await host.mux(client)
    ws = (await ok(client, WORKSPACE_CREATE, {"path": str(project(host, "forky"))})).workspace
    source = (await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id})).session_id
    await run_turn(client, mux, source, "hello")
    child = (await ok(client, SESSION_FORK, {"sessionId": source})).session_id
    assert (await listing(host)).items[0].session_ids == [child, source]
    loose = await host.create()
    await run_turn(client, mux, loose, "hello")
    loose_child = (await ok(client, SESSION_FORK, {"sessionId": loose})).session_id
    assert loose_child not in (await listing(host)).items[0].session_ids  # Ungrouped stays Ungrouped


async def test_insert_session_before_reorders_the_account(host: Host) -> None:
    client = host.client()
    ws = (await ok(client, WORKSPACE_CREATE, {"path": str(project(host, "order"))})).workspace
    wid = ws.workspace_id
    a, b, c = [(await ok(client, SESSION_CREATE, {"workspaceId": wid})).session_id for _ in range(3)]
    assert (await listing(host)).items[0].session_ids == [c, b, a]

    moved = await ok(
        client, WORKSPACE_INSERT_SESSION_BEFORE, {"workspaceId": wid, "sessionId": a, "beforeSessionId": c}
    )
    assert moved.workspace.session_ids == [a, c, b]
    to_end = await ok(client, WORKSPACE_INSERT_SESSION_BEFORE, {"workspaceId": wid, "sessionId": a})
    assert to_end.workspace.session_ids == [c, b, a]
    stay = await ok(
        client, WORKSPACE_INSERT_SESSION_BEFORE, {"workspaceId": wid, "sessionId": b, "beforeSessionId": a}
    )
    assert (
        stay.workspace.session_ids == [c, b, a] and stay.workspace.updated_at == to_end.workspace.updated_at
    )

    outsider = await host.create()
    error = await err(
        client,
        WORKSPACE_INSERT_SESSION_BEFORE,
        {"workspaceId": wid, "sessionId": outsider, "beforeSessionId": a},
        "workspace-move-invalid",
    )
    assert error.details == {"workspaceId": wid, "sessionId": outsider, "beforeSessionId": a}
    error = await err(
        client,
        WORKSPACE_INSERT_SESSION_BEFORE,
        {"workspaceId": wid, "sessionId": a, "beforeSessionId": outsider},
        "workspace-move-invalid",
    )
    assert error.details["beforeSessionId"] == outsider
    error = await err(
        client,
        WORKSPACE_INSERT_SESSION_BEFORE,
        {"workspaceId": wid, "sessionId": outsider},
        "workspace-move-invalid",
    )
    assert error.details == {"workspaceId": wid, "sessionId": outsider, "beforeSessionId": None}
    await err(
        client,
        WORKSPACE_INSERT_SESSION_BEFORE,
        {"workspaceId": UNKNOWN_WS, "sessionId": a},
        "workspace-not-found",
    )
    assert (await listing(host)).items[0].session_ids == [c, b, a]


async def test_archive_and_unarchive(host: Host) -> None:
    client = host.client()
    hosts = await host.host_stream(client)
    ws = (await ok(client, WORKSPACE_CREATE, {"path": str(project(host, "arch"))})).workspace
    inside = (await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id})).session_id
    loose = await host.create()

    assert (await ok(client, WORKSPACE_ARCHIVE_SESSION, {"sessionId": loose})).archived_session_ids == [loose]
    both = await ok(client, WORKSPACE_ARCHIVE_SESSION, {"sessionId": inside})
    assert both.archived_session_ids == [loose, inside]  # archive order
    frames = [(await hosts.next(ftype("host/archived-sessions-changed")))[1] for _ in range(2)]
    assert [f.archived_session_ids for f in frames] == [[loose], [loose, inside]]
    twice = await ok(client, WORKSPACE_ARCHIVE_SESSION, {"sessionId": inside})
    assert twice.archived_session_ids == [loose, inside]

    listed = await listing(host)
    assert listed.archived_session_ids == [loose, inside]
    assert listed.items[0].session_ids == [inside]  # archiving keeps the slot
    assert {loose, inside} <= {s.session_id for s in (await ok(client, SESSION_LIST)).items}

    back = await ok(client, WORKSPACE_UNARCHIVE_SESSION, {"sessionId": loose})
    assert back.archived_session_ids == [inside]
    assert (await ok(client, WORKSPACE_UNARCHIVE_SESSION, {"sessionId": loose})).archived_session_ids == [
        inside
    ]
    await asyncio.sleep(0.2)
    archive_frames = [f for f in hosts.frames if f.type == "host/archived-sessions-changed"]
    assert [f.archived_session_ids for f in archive_frames] == [[loose], [loose, inside], [inside]]

    for key in (WORKSPACE_ARCHIVE_SESSION, WORKSPACE_UNARCHIVE_SESSION):
        error = await err(client, key, {"sessionId": "s-nope"}, "session-not-found")
        assert error.details == {"sessionId": "s-nope"}
    await err(client, WORKSPACE_ARCHIVE_SESSION, {"sessionId": ""}, "bad-request")


async def test_the_registry_survives_a_restart(host: Host, tmp_path: Path, llm: ScriptedLlmServer) -> None:
    from tests.api.conftest import open_test_host

    llm.enqueue(Reply(text="one"), Reply(text="two"))
    client = host.client()
    mux = await host.mux(client)
    ws = (await ok(client, WORKSPACE_CREATE, {"path": str(project(host, "durable"))})).workspace
    a = (await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id})).session_id
    b = (await ok(client, SESSION_CREATE, {"workspaceId": ws.workspace_id})).session_id
    for sid in (a, b):
        await run_turn(client, mux, sid, "persist me")
    await ok(
        client,
        WORKSPACE_INSERT_SESSION_BEFORE,
        {"workspaceId": ws.workspace_id, "sessionId": a, "beforeSessionId": b},
    )
    await ok(client, WORKSPACE_RENAME, {"workspaceId": ws.workspace_id, "title": "Durable"})
    await ok(client, WORKSPACE_ARCHIVE_SESSION, {"sessionId": b})
    before = await listing(host)
    await host.close()

    again = await open_test_host(host.carrier, tmp_path, llm.base_url, data_dir=host.data_dir)
    try:
        after = await ok(again.client(), WORKSPACE_LIST)
        assert after == before
    finally:
        await again.close()
