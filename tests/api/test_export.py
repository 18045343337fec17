"""`GET|HEAD /api/session.export` (a streamed ZIP) and the `harnessdesk export`/`import` round trip."""

from __future__ import annotations

import base64
import io
import json
import re
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from contract.methods import (
    SESSION_ATTACHMENT,
    SESSION_FORK,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_PROMPT,
    SESSION_RENAME,
)
from tests.api.conftest import Host, open_test_host
from tests.api.support import (
    Raw,
    event,
    image_input,
    ok,
    page_events,
    png,
    raw,
    run_cli,
    run_main,
    run_turn,
    text,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def export_path(sid: str, descendants: str | None = None) -> str:
    query = f"sessionId={sid}" + (f"&includeDescendants={descendants}" if descendants is not None else "")
    return f"/api/session.export?{query}"


def lines(zf: zipfile.ZipFile, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in zf.read(name).decode().splitlines() if line.strip()]


async def all_events(client: Any, sid: str) -> list[dict[str, Any]]:
    page = await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 10_000})
    return [e.dump() for e in page_events(page)]


async def image_session(host: Host, llm: ScriptedLlmServer) -> tuple[Any, str, bytes]:
    """A session with a text turn and an image turn; returns (client, sessionId, the image)."""
    llm.enqueue(Reply(text="plain"), Reply(text="a red picture"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "hello")
    image = png(4, 4, (255, 0, 0))
    content = [*text("what colour?"), image_input(image, name="red.png")]
    await ok(client, SESSION_PROMPT, {"sessionId": sid, "mode": "queue", "content": content})
    await mux.next(event("turn/end", sid))
    await mux.seen(event("session/title", sid))  # the auto title, after the first turn
    return client, sid, image


async def session_day(client: Any, sid: str) -> str:
    """The session's local date as its export name shows it (its last activity)."""
    listed = await ok(client, SESSION_LIST, {})
    updated = next(s.updated_at for s in listed.items if s.session_id == sid)
    return datetime.fromtimestamp(updated / 1000).strftime("%Y-%m-%d")


def suggested_name(disposition: str) -> str:
    """The exact (UTF-8) name of a Content-Disposition, as a browser reads it."""
    match = re.search(r"filename\*=UTF-8''([^;]+)", disposition)
    assert match, disposition
    return unquote(match.group(1))


async def test_export_file_is_named_after_the_title_and_date(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="ok"), Reply(text="ok"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "first")
    await ok(client, SESSION_RENAME, {"sessionId": sid, "title": "Fix: the login/bug — 修复 ../etc"})
    got = await raw(client, "HEAD", export_path(sid))
    day = await session_day(client, sid)
    assert suggested_name(got.headers["content-disposition"]) == f"Fix-the-login-bug-修复-etc-{day}.zip"
    assert f'filename="dsh-session-{sid}.zip"' in got.headers["content-disposition"]  # the reference's name
    untitled = await host.create()
    await run_turn(client, mux, untitled, "???")  # an auto title with no letters or digits
    got = await raw(client, "HEAD", export_path(untitled))
    name = suggested_name(got.headers["content-disposition"])
    tail = "".join(ch for ch in untitled if ch.isalnum())[-8:]
    assert name == f"untitled-session-{await session_day(client, untitled)}-{tail}.zip"


async def test_get_export_is_a_zip_of_the_session_and_its_media(host: Host, llm: ScriptedLlmServer) -> None:
    client, sid, image = await image_session(host, llm)
    got = await raw(client, "GET", export_path(sid))
    assert got.status == 200
    assert got.headers["content-type"] == "application/zip"
    disposition = got.headers["content-disposition"]
    day = await session_day(client, sid)
    assert disposition.startswith("attachment;") and f'filename="dsh-session-{sid}.zip"' in disposition
    assert suggested_name(disposition) == f"hello-{day}.zip"  # what a person's browser saves
    zf = zipfile.ZipFile(io.BytesIO(got.body))
    assert zf.testzip() is None
    names = zf.namelist()
    assert "session.jsonl" in names and not [n for n in names if n.startswith("subagents/")]
    rows = lines(zf, "session.jsonl")
    header, events = rows[0], rows[1:]
    assert header["id"] == sid and header["cwd"] == str(host.workdir) and header["blank"] is False
    assert header["title"] == "hello" and header["parentSession"] is None
    assert events == await all_events(client, sid)
    image_event = next(e for e in events if e["type"] == "user/message" and len(e["data"]["content"]) == 2)
    ref = image_event["data"]["content"][1]["attachment"]
    assert zf.read(f"media/{ref['attachmentId']}.png") == image
    stored_ref = json.loads(zf.read(f"media/{ref['attachmentId']}.json"))
    assert {k: stored_ref[k] for k in ("attachmentId", "mediaType", "bytes", "width", "height")} == {
        k: ref[k] for k in ("attachmentId", "mediaType", "bytes", "width", "height")
    }
    assert "base64" not in zf.read("session.jsonl").decode()


async def test_head_gives_the_same_headers_and_no_body(host: Host, llm: ScriptedLlmServer) -> None:
    client, sid, _ = await image_session(host, llm)
    got = await raw(client, "GET", export_path(sid, "false"))
    head = await raw(client, "HEAD", export_path(sid, "false"))
    assert head.status == 200 and head.body == b""
    for name in ("content-type", "content-disposition", "cache-control"):
        assert head.headers[name] == got.headers[name], name


async def test_export_errors(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    cases: dict[str, int] = {
        "/api/session.export": 400,
        "/api/session.export?sessionId=": 400,
        "/api/session.export?includeDescendants=true": 400,
        "/api/session.export?sessionId=../../etc": 404,  # no session can have that id
        export_path("s-unknown"): 404,
        export_path("s-unknown", "true"): 404,
    }
    for path, status in cases.items():
        for method in ("GET", "HEAD"):
            got: Raw = await raw(client, method, path)
            assert got.status == status, (method, path, got.status, got.body[:100])
    posted = await raw(client, "POST", export_path(sid), {"content-type": "application/json"}, b"{}")
    assert posted.status == 404
    # a created session with nothing in it yet exports its header alone
    empty = await raw(client, "GET", export_path(sid))
    assert empty.status == 200
    rows = lines(zipfile.ZipFile(io.BytesIO(empty.body)), "session.jsonl")
    assert len(rows) == 1 and rows[0]["id"] == sid


async def test_include_descendants_adds_forked_children(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    parent = await host.create()
    await run_turn(client, mux, parent, "parent")
    child = (await ok(client, SESSION_FORK, {"sessionId": parent})).session_id
    await run_turn(client, mux, child, "child")
    grandchild = (await ok(client, SESSION_FORK, {"sessionId": child})).session_id
    unrelated = await host.create()
    await run_turn(client, mux, unrelated, "unrelated")
    deep = zipfile.ZipFile(io.BytesIO((await raw(client, "GET", export_path(parent, "true"))).body))
    subagents = sorted(n for n in deep.namelist() if n.startswith("subagents/"))
    assert subagents == sorted([f"subagents/{child}/session.jsonl", f"subagents/{grandchild}/session.jsonl"])
    for sid in (child, grandchild):
        rows = lines(deep, f"subagents/{sid}/session.jsonl")
        assert rows[0]["id"] == sid and rows[1:] == await all_events(client, sid)
    assert lines(deep, f"subagents/{child}/session.jsonl")[0]["parentSession"] == parent
    for flag in ("false", "1", "TRUE", "maybe", ""):  # only the exact `true` includes descendants
        shallow = zipfile.ZipFile(io.BytesIO((await raw(client, "GET", export_path(parent, flag))).body))
        assert not [n for n in shallow.namelist() if n.startswith("subagents/")], flag
    # depth first, each once: the child, then the grandchild under it
    assert [n for n in deep.namelist() if n.startswith("subagents/")] == [
        f"subagents/{child}/session.jsonl",
        f"subagents/{grandchild}/session.jsonl",
    ]
    # unknown parameters are ignored; a repeated one's last value wins
    repeated = f"/api/session.export?sessionId=s-nope&sessionId={parent}&x=1&includeDescendants=true"
    last = zipfile.ZipFile(io.BytesIO((await raw(client, "GET", repeated)).body))
    assert len(last.namelist()) == len(deep.namelist())
    from_child = zipfile.ZipFile(io.BytesIO((await raw(client, "GET", export_path(child, "true"))).body))
    assert [n for n in from_child.namelist() if n.startswith("subagents/")] == [
        f"subagents/{grandchild}/session.jsonl"
    ]


async def test_cli_export_then_import_round_trips_exactly(
    tmp_path: Path, llm_server: ScriptedLlmServer
) -> None:
    llm_server.reset()
    source = await open_test_host("inprocess", tmp_path / "a", llm_server.base_url)
    try:
        client, sid, image = await image_session(source, llm_server)
        mux = await source.mux(client)
        await ok(client, SESSION_RENAME, {"sessionId": sid, "title": "Round trip"})
        child = (await ok(client, SESSION_FORK, {"sessionId": sid})).session_id
        await run_turn(client, mux, child, "in the fork")  # titled already: the parent's user title
        before = {s: await all_events(client, s) for s in (sid, child)}
        summaries = {s.session_id: s.dump() for s in (await ok(client, SESSION_LIST)).items}
        online = await raw(client, "GET", export_path(sid, "true"))
    finally:
        await source.close()

    archive = tmp_path / "out" / "session.zip"
    archive.parent.mkdir()
    exported = run_cli("export", sid, "-o", str(archive), "--descendants", "--data-dir", str(source.data_dir))
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.strip() == str(archive) and exported.stderr == ""
    offline = zipfile.ZipFile(archive)
    online_zip = zipfile.ZipFile(io.BytesIO(online.body))
    assert sorted(offline.namelist()) == sorted(online_zip.namelist())
    for name in offline.namelist():
        assert offline.read(name) == online_zip.read(name), name  # the CLI and the API agree byte for byte

    fresh = tmp_path / "b" / "data"
    cwd = json.loads(offline.read("session.jsonl").decode().splitlines()[0])["cwd"]
    imported = run_cli("import", str(archive), "--cwd", cwd, "--data-dir", str(fresh))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split() == [sid, child]

    again = tmp_path / "again.zip"
    assert run_cli("export", sid, "-o", str(again), "--descendants", "--data-dir", str(fresh)).returncode == 0
    reexported = zipfile.ZipFile(again)
    assert sorted(reexported.namelist()) == sorted(offline.namelist())
    for name in offline.namelist():
        assert reexported.read(name) == offline.read(name), name  # header, every event, media: exact

    target = await open_test_host("inprocess", tmp_path / "b", llm_server.base_url, data_dir=fresh)
    try:
        client = target.client()
        for s, events in before.items():
            assert await all_events(client, s) == events
        after = {s.session_id: s.dump() for s in (await ok(client, SESSION_LIST)).items}
        # a cold row's projections are its stored title as of an unknown seq (-1); the rest is equal
        blocks = {k: after[k].pop("projections", None) for k in after}
        # attention (finished, not yet seen) is the source host's memory of the person, not the session's
        for row in after.values():
            row.pop("attention", None)
        live = {
            k: {key: v for key, v in row.items() if key not in ("projections", "attention")}
            for k, row in summaries.items()
        }
        assert after == {k: {**v, "running": False} for k, v in live.items() if k in after}
        for k, block in blocks.items():
            assert block is None or block == {"asOfSeq": -1, "values": {"title": after[k]["title"]}}
        assert set(after) == {sid, child}
        image_event = next(
            e for e in before[sid] if e["type"] == "user/message" and len(e["data"]["content"]) == 2
        )
        attachment_id = image_event["data"]["content"][1]["attachment"]["attachmentId"]
        got = await ok(client, SESSION_ATTACHMENT, {"sessionId": sid, "attachmentId": attachment_id})
        assert base64.b64decode(got.data) == image
    finally:
        await target.close()

    twice = run_cli("import", str(archive), "--cwd", cwd, "--data-dir", str(fresh))
    assert twice.returncode == 2 and "Traceback" not in twice.stderr
    assert len(twice.stderr.strip().splitlines()) == 1 and sid in twice.stderr

    # only the child exists in a third data dir: importing the family conflicts as a whole
    only_child = tmp_path / "child.zip"
    assert run_main("export", child, "-o", str(only_child), "--data-dir", str(fresh)).returncode == 0
    third = tmp_path / "c" / "data"
    only = run_main("import", str(only_child), "--cwd", cwd, "--data-dir", str(third))
    assert only.stdout.split() == [child]
    clash = run_main("import", str(archive), "--cwd", cwd, "--data-dir", str(third))
    assert clash.returncode == 2 and child in clash.stderr and "Traceback" not in clash.stderr
    target = await open_test_host("inprocess", tmp_path / "c", llm_server.base_url, data_dir=third)
    try:
        listed = [s.session_id for s in (await ok(target.client(), SESSION_LIST)).items]
        assert listed == [child]  # the parent was not half-imported before the clash
    finally:
        await target.close()


async def test_export_answers_and_bytes_as_the_reference_sends_them(
    host: Host, llm: ScriptedLlmServer
) -> None:
    """Spec 07 §4 (§6 items 22-24): plain-text refusals decided before any ZIP byte, the
    reference's file name, and the stored event text verbatim."""
    import sqlite3

    llm.enqueue(Reply(text="Stored exactly — ünïcode and all."))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "keep my bytes: “quotes”")
    missing = await raw(client, "GET", "/api/session.export")
    assert missing.status == 400 and missing.headers["content-type"].startswith("text/plain")
    assert not missing.body.startswith(b"PK")
    unknown = await raw(client, "GET", export_path("s-unknown"))
    assert unknown.status == 404 and unknown.body == b"session not found"
    got = await raw(client, "GET", export_path(sid, "1"))  # `1` is not `true`: root only
    assert got.status == 200 and got.headers["content-type"] == "application/zip"
    assert f'filename="dsh-session-{sid}.zip"' in got.headers["content-disposition"]
    zf = zipfile.ZipFile(io.BytesIO(got.body))
    assert zf.namelist()[0] == "session.jsonl" and zf.infolist()[0].compress_type == zipfile.ZIP_DEFLATED
    entry = zf.read("session.jsonl").decode("utf-8").split("\n")
    await host.engine.parts.store.flush()
    with sqlite3.connect(host.data_dir / "harnessdesk.sqlite3") as db:
        stored = [
            row[0] for row in db.execute("SELECT json FROM events WHERE session_id = ? ORDER BY seq", (sid,))
        ]
    assert entry[1:-1] == stored and entry[-1] == ""  # each event line is the stored text, byte for byte
