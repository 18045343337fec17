"""`session.import`: an archive uploaded as base64 lands in a workspace, loosens nothing, and a
bad one is refused in one line with nothing written (docs/decisions.md, "Import in the app")."""

from __future__ import annotations

import base64
import io
import os
import zipfile
from pathlib import Path
from typing import Any

from contract.methods import (
    SESSION_DELETE,
    SESSION_FORK,
    SESSION_HISTORY,
    SESSION_IMPORT,
    SESSION_LIST,
    WORKSPACE_CREATE,
    WORKSPACE_LIST,
)
from contract.sessions import MAX_IMPORT_BYTES
from tests.api.conftest import Host, open_test_host
from tests.api.support import err, ok, raw, run_main, run_turn
from tests.security.test_imported_archives import _ev, forged_log
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def zip_of(entries: dict[str, str | bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return out.getvalue()


async def workspace(client: Any, path: Path) -> str:
    os.makedirs(path, exist_ok=True)
    return str((await ok(client, WORKSPACE_CREATE, {"path": str(path)})).workspace.workspace_id)


async def exported(host: Host, llm: ScriptedLlmServer) -> tuple[str, bytes]:
    """A session with one turn and its fork, exported with descendants, then deleted here."""
    llm.enqueue(Reply(text="hello back"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "hello")
    child = (await ok(client, SESSION_FORK, {"sessionId": sid})).session_id
    body = (await raw(client, "GET", f"/api/session.export?sessionId={sid}&includeDescendants=true")).body
    for gone in (child, sid):
        await ok(client, SESSION_DELETE, {"sessionId": gone})
    return sid, body


async def test_an_uploaded_archive_lands_under_its_workspace(host: Host, llm: ScriptedLlmServer) -> None:
    sid, archive = await exported(host, llm)
    client = host.client()
    wid = await workspace(client, host.workdir / "project")
    value = await ok(client, SESSION_IMPORT, {"data": b64(archive), "workspaceId": wid, "fileName": "a.zip"})
    assert value.session_id == sid and value.session_ids[0] == sid and len(value.session_ids) == 2
    assert value.workspace_id == wid
    listed = {s.session_id: s for s in (await ok(client, SESSION_LIST)).items}
    project = str((host.workdir / "project").resolve())
    assert {listed[s].cwd for s in value.session_ids} == {project}  # never the archive's folder
    views = {w.workspace_id: w for w in (await ok(client, WORKSPACE_LIST)).items}
    assert views[wid].session_ids[0] == sid  # on top of its workspace, not "Ungrouped"
    assert set(views[wid].session_ids) == set(value.session_ids)
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    assert "hello back" in history.model_dump_json()  # the conversation came with it


async def test_an_archive_cannot_loosen_the_mode_or_pre_approve(host: Host, llm: ScriptedLlmServer) -> None:
    """It carries `permission/preset danger-full-access` and "allowed-always" audits: the session
    still runs in the default mode, with no rules."""
    lines = forged_log("s-loose", "/").splitlines()
    extra = _ev(len(lines) - 1, "permission/preset", {"preset": "danger-full-access"})
    archive = zip_of({"session.jsonl": "\n".join([*lines, extra]) + "\n"})
    client = host.client()
    wid = await workspace(client, host.workdir / "loose")
    await ok(client, SESSION_IMPORT, {"data": b64(archive), "workspaceId": wid})
    history = await ok(client, SESSION_HISTORY, {"sessionId": "s-loose"})
    assert history.projections is not None
    permissions = history.projections.values["permissions"]
    assert permissions["currentValue"] == "workspace-write" and permissions["rules"] == []


async def test_bad_uploads_are_one_line_and_write_nothing(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    wid = await workspace(client, host.workdir / "p")
    good = zip_of({"session.jsonl": forged_log("s-good", "/")})

    not_zip = await err(
        client, SESSION_IMPORT, {"data": b64(b"hello"), "workspaceId": wid}, "archive-invalid"
    )
    assert "not a readable zip archive" in not_zip.message and "\n" not in not_zip.message
    no_log = zip_of({"readme.txt": "hi"})
    missing = await err(client, SESSION_IMPORT, {"data": b64(no_log), "workspaceId": wid}, "archive-invalid")
    assert "session.jsonl is missing" in missing.message
    corrupt = bytearray(good)
    at = corrupt.index(b"PK\x01\x02")  # damage the compressed bytes before the directory
    corrupt[at - 20 : at - 4] = b"\xff" * 16
    broken = await err(
        client, SESSION_IMPORT, {"data": b64(bytes(corrupt)), "workspaceId": wid}, "archive-invalid"
    )
    assert "\n" not in broken.message
    await err(client, SESSION_IMPORT, {"data": "@@not base64@@", "workspaceId": wid}, "bad-request")
    too_big = "A" * (4 * -(-MAX_IMPORT_BYTES // 3) + 4)
    await err(client, SESSION_IMPORT, {"data": too_big, "workspaceId": wid}, "bad-request")
    await err(client, SESSION_IMPORT, {"data": b64(good), "workspaceId": "w-nope"}, "workspace-not-found")
    assert (await ok(client, SESSION_LIST)).items == []  # nothing half-imported
    views = (await ok(client, WORKSPACE_LIST)).items
    assert [w.session_ids for w in views] == [[]]

    await ok(client, SESSION_IMPORT, {"data": b64(good), "workspaceId": wid})
    again = await err(client, SESSION_IMPORT, {"data": b64(good), "workspaceId": wid}, "session-exists")
    assert again.message.startswith("session s-good is already here")
    assert again.details == {"sessionId": "s-good"}  # the page offers "Open it"
    assert len((await ok(client, SESSION_LIST)).items) == 1

    # "Import as a copy" (issue 46, item 7): new ids, "(copy)" titles, the original untouched
    titled = b64(zip_of({"session.jsonl": forged_log("s-titled", "/", title="Plan the beds")}))
    await ok(client, SESSION_IMPORT, {"data": titled, "workspaceId": wid})
    await err(client, SESSION_IMPORT, {"data": titled, "workspaceId": wid}, "session-exists")
    copy = await ok(client, SESSION_IMPORT, {"data": titled, "workspaceId": wid, "asCopy": True})
    assert copy.session_id not in ("s-good", "s-titled") and copy.session_id.startswith("s-")
    listed = {s.session_id: s for s in (await ok(client, SESSION_LIST)).items}
    assert set(listed) == {"s-good", "s-titled", copy.session_id}
    assert (listed["s-titled"].title, listed[copy.session_id].title) == (
        "Plan the beds",
        "Plan the beds (copy)",
    )
    copied = await ok(client, SESSION_HISTORY, {"sessionId": copy.session_id})
    assert len(copied.events) == len((await ok(client, SESSION_HISTORY, {"sessionId": "s-titled"})).events)
    views = (await ok(client, WORKSPACE_LIST)).items
    assert set(views[0].session_ids) == {"s-good", "s-titled", copy.session_id}


async def test_the_cli_import_lands_under_its_folder_too(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    """`harnessdesk import --cwd DIR` with no window open: DIR is registered (or adopted) and the
    session sits in its account, not "Ungrouped", when the app opens next."""
    archive = tmp_path / "a.zip"
    archive.write_bytes(zip_of({"session.jsonl": forged_log("s-cli", "/")}))
    work = tmp_path / "work"
    os.makedirs(work)
    data = tmp_path / "data"
    done = run_main("import", str(archive), "--cwd", str(work), "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["s-cli"]
    host = await open_test_host("inprocess", tmp_path, llm.base_url, data_dir=data)
    try:
        views = (await ok(host.client(), WORKSPACE_LIST)).items
        assert [(w.path, w.session_ids) for w in views] == [(str(work.resolve()), ["s-cli"])]
    finally:
        await host.close()
