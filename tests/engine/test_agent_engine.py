"""The Engine facade: sessions, history repair, fork, rename, search, images, models, streams."""

from __future__ import annotations

import base64
import json
import sqlite3
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from contract.frames import SessionEventFrame, SessionQueue, SessionSubscribed
from contract.sessions import ImageInput, RemoveAction, SteerAction, TextInput
from host.engine.errors import (
    AttachmentError,
    ForkUnavailable,
    InvalidTimeZone,
    ModelUnavailable,
    QueueItemNotFound,
    SessionAlreadyHere,
    SessionConflict,
    SessionNotFound,
    TitleInvalid,
)
from host.engine.sessions.media import sniff
from host.engine.store import DB_FILE, SessionHeader, SqliteStore, StoreError
from tests.engine.conftest import assistant_data, ev, events_of, frames_until, is_event, user_msg
from tests.support.engine import agent_of, queued, wait_quiet
from tests.support.scripted_llm import Reply

Factory = Any


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"".join(b"\x00" + b"\x00\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    )


def test_image_headers_are_read_without_pillow() -> None:
    assert sniff(png(3, 2)) == ("image/png", 3, 2)
    assert sniff(b"GIF89a" + struct.pack("<HH", 640, 480) + b"\x00" * 8) == ("image/gif", 640, 480)
    jpeg = (
        b"\xff\xd8"
        + b"\xff\xe0"
        + struct.pack(">H", 4)
        + b"JF"
        + b"\xff\xc0"
        + struct.pack(">HBHH", 11, 8, 200, 300)
    )
    assert sniff(jpeg + b"\x00" * 8) == ("image/jpeg", 300, 200)
    vp8x = (
        b"RIFF"
        + b"\x00" * 4
        + b"WEBPVP8X"
        + b"\x00" * 8
        + (99).to_bytes(3, "little")
        + (49).to_bytes(3, "little")
    )
    assert sniff(vp8x) == ("image/webp", 100, 50)
    with pytest.raises(ValueError):
        sniff(b"not an image at all")


async def cold_session_with_open_turn(data_dir: Path) -> None:
    store = SqliteStore.in_dir(data_dir)
    await store.open()
    store.register(SessionHeader(id="cold", created_at=5, cwd="/w"))
    store.append(
        "cold",
        [
            ev(0, "turn/start", {"turn": 0, "trigger": "user"}),
            ev(1, "user/message", user_msg("first question")),
            ev(2, "assistant/message", assistant_data("first answer")),
            ev(3, "turn/end", {"turn": 0, "reason": {"kind": "completed"}}),
            ev(4, "turn/start", {"turn": 1, "trigger": "user"}),
            ev(5, "user/message", user_msg("second")),
            ev(6, "step/start", {"turn": 1, "step": 0}),
            ev(7, "assistant/message", assistant_data("", 1, 0, [("t1", "bash")])),
            ev(8, "tool/call", {"turn": 1, "step": 0, "callId": "t1", "name": "bash", "arguments": "{}"}),
        ],
    )
    await store.close()


async def test_cold_history_is_repaired_in_memory_and_attach_writes_it(
    engine_factory: Factory, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    await cold_session_with_open_turn(data)
    engine = await engine_factory(data, tools={})
    events, has_more, projections = await engine.sessions.history("cold")
    assert [e.type for e in events[-3:]] == ["tool/result", "step/end", "turn/end"]
    assert events[-3].data["error"]["code"] == "TOOL_OUTCOME_UNKNOWN" and not has_more
    assert projections is not None and projections.as_of_seq == 11
    assert engine.agents.attached() == []  # no agent attached
    conn = sqlite3.connect(data / DB_FILE)
    assert conn.execute("SELECT MAX(seq) FROM events WHERE session_id = 'cold'").fetchone()[0] == 8
    page, _, _ = await engine.sessions.history("cold", before_seq=10, max_messages=50)
    assert [e.seq for e in page] == list(range(10))  # a window ending before the repair's end
    summary = (await engine.sessions.list_sessions())[0]
    assert summary.updated_at == 1_005  # the last user message, not the crash
    mux = engine.host.subscribe_mux()
    await engine.agents.attach("cold")
    frames = await frames_until(mux, is_event("turn/end"))
    assert isinstance(frames[0], SessionSubscribed) and frames[0].last_seq == 8
    assert [e.seq for e in events_of(frames)] == [9, 10, 11]
    await engine.parts.store.flush()
    assert conn.execute("SELECT MAX(seq) FROM events WHERE session_id = 'cold'").fetchone()[0] == 11
    conn.close()
    assert (await engine.sessions.list_sessions())[0].updated_at == 1_005  # repair is not activity
    agent = engine.parts.pool.agents.get("cold")
    assert agent.next_turn == 2 and [m.role for m in agent.history] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
    ]


async def test_create_list_and_conflicts(engine_factory: Factory) -> None:
    engine = await engine_factory(tools={})
    host = engine.host.subscribe_host()
    a = await engine.sessions.create_session("/tmp/a")
    b = await engine.sessions.create_session("/tmp/b", session_id="pre-allocated-1", agent_preset="read-only")
    assert b == "pre-allocated-1"
    assert await engine.sessions.create_session("/tmp/b", session_id=b) == b  # idempotent
    with pytest.raises(SessionConflict) as info:
        await engine.sessions.create_session("/tmp/other", session_id=b)
    assert info.value.details() == {"sessionId": b, "requestedCwd": "/tmp/other", "existingCwd": "/tmp/b"}
    listed = {s.session_id: s for s in await engine.sessions.list_sessions()}
    assert listed[a].blank and listed[b].agent_preset == "read-only" and listed[a].cwd == "/tmp/a"
    added = [host.get_nowait()[1] for _ in range(2)]
    assert [f.session_id for f in added] == [a, b] and all(f.blank for f in added)
    for call in (
        engine.sessions.history("nope"),
        engine.agents.cancel("nope"),
        engine.sessions.rename("nope", "x"),
        engine.sessions.fork("nope"),
    ):
        with pytest.raises(SessionNotFound):
            await call
    events, has_more, projections = await engine.sessions.history(a)
    assert events == [] and not has_more and projections is not None and projections.as_of_seq == -1


async def test_rename_validates_and_pins(engine_factory: Factory) -> None:
    engine = await engine_factory(tools={})
    sid = await engine.sessions.create_session("/tmp")
    for bad in ["", "   ", "\n\t", "\u200b\u200b"]:
        with pytest.raises(TitleInvalid):
            await engine.sessions.rename(sid, bad)
    mux = engine.host.subscribe_mux()
    assert await engine.sessions.rename(sid, " a\u0007b  c ") == ("ab c", 0)
    frames = await frames_until(mux, lambda f: f.type == "session/projection")
    assert frames[-1].value == "ab c" and frames[-1].seq == 0
    assert (await engine.sessions.list_sessions())[0].title == "ab c"


async def test_fork_anchors_and_end_seed(engine_factory: Factory, scripted_llm: Any, tmp_path: Path) -> None:
    data = tmp_path / "data"
    await cold_session_with_open_turn(data)
    engine = await engine_factory(data, tools={})
    with pytest.raises(ForkUnavailable):
        await engine.sessions.fork("cold", at_seq=5)  # inside the open turn
    child = await engine.sessions.fork("cold")  # the last completed turn
    events, _, _ = await engine.sessions.history(child)
    assert [e.type for e in events][-2:] == ["turn/end", "session/end-seed"] and len(events) == 5
    summary = next(s for s in await engine.sessions.list_sessions() if s.session_id == child)
    assert summary.parent_session_id == "cold" and summary.cwd == "/w" and not summary.blank
    same = await engine.sessions.fork("cold", at_seq=1)
    assert len((await engine.sessions.history(same))[0]) == 5
    empty = await engine.sessions.create_session("/tmp")
    with pytest.raises(ForkUnavailable):
        await engine.sessions.fork(empty)
    # the child inherits the parent's model selection and can run a turn of its own
    await engine.config.select_model("cold", "openai-compatible", "scripted-large")
    # selecting a model loads "cold", which closes its open turn: that turn counts as ended now,
    # so the child is anchored in the first turn to keep its history to the seed
    third = await engine.sessions.fork("cold", at_seq=1)
    scripted_llm.enqueue(Reply(text="child answer"))
    mux = engine.host.subscribe_mux()
    await engine.agents.prompt(third, "queue", [TextInput(text="go on")], "r")
    frames = await frames_until(mux, is_event("turn/end"))
    assert events_of(frames)[0].seq == 5  # after the seed end
    assert scripted_llm.requests[-1]["model"] == "scripted-large"
    assert [m["content"] for m in scripted_llm.requests[-1]["messages"][1:]] == [
        "first question",
        "first answer",
        "go on",
    ]


async def test_images_become_attachments(engine_factory: Factory, scripted_llm: Any) -> None:
    engine = await engine_factory(tools={})
    sid = await engine.sessions.create_session("/tmp")
    image = png(4, 3)
    data = base64.b64encode(image).decode()
    mux = engine.host.subscribe_mux()
    content = [TextInput(text="see"), ImageInput(media_type="image/png", data=data, name="shot.png")]
    await engine.agents.prompt(sid, "queue", content, "r", client_time_zone="Europe/Paris")
    frames = await frames_until(mux, is_event("turn/end"))
    user = next(e for e in events_of(frames) if e.type == "user/message").data
    block = user["content"][1]
    assert block["attachment"]["width"] == 4 and block["attachment"]["height"] == 3
    assert block["attachment"]["bytes"] == len(image) and block["attachment"]["name"] == "shot.png"
    assert "data" not in json.dumps(user["content"][1]) and user["source"]["clientTimeZone"] == "Europe/Paris"
    ref, blob = await engine.sessions.attachment(sid, block["attachment"]["attachmentId"])
    assert blob == image and ref.media_type == "image/png"
    other = await engine.sessions.create_session("/tmp")
    with pytest.raises(AttachmentError):
        await engine.sessions.attachment(other, block["attachment"]["attachmentId"])
    sent = scripted_llm.requests[0]["messages"][1]["content"]
    assert sent[1]["image_url"]["url"].startswith("data:image/png;base64,")
    with pytest.raises(AttachmentError):
        await engine.agents.prompt(sid, "queue", [ImageInput(media_type="image/gif", data=data)], "r2")
    with pytest.raises(AttachmentError):
        await engine.agents.prompt(
            sid, "queue", [ImageInput(media_type="image/png", data="!!notbase64")], "r3"
        )
    huge = base64.b64encode(b"\x89PNG" + b"\x00" * (20 * 1024 * 1024)).decode()
    with pytest.raises(AttachmentError, match="20 MiB"):
        await engine.agents.prompt(sid, "queue", [ImageInput(media_type="image/png", data=huge)], "r4")
    with pytest.raises(InvalidTimeZone):
        await engine.agents.prompt(sid, "queue", [TextInput(text="x")], "r5", client_time_zone="Nowhere/City")


async def test_search_export_import(engine_factory: Factory, scripted_llm: Any, tmp_path: Path) -> None:
    scripted_llm.enqueue(Reply(text="The flux capacitor is charged."))
    engine = await engine_factory(tools={})
    sid = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(sid, "queue", [TextInput(text="check the capacitor")], "r")
    await engine.agents.attach(sid)
    await wait_quiet(agent_of(engine, sid))
    found = await engine.sessions.search("  flux CAPACITOR ")
    hits = found.hits
    assert [(s, text) for s, text, _ in hits] == [(sid, "The flux capacitor is charged.")]
    assert not found.has_more
    events, _, _ = await engine.sessions.history(sid)
    assert next(e for e in events if e.seq == hits[0][2]).type == "assistant/message"  # the hit's message
    rows = [row async for row in engine.sessions.export_rows(sid)]
    other = await engine_factory(tmp_path / "other", tools={})
    assert await other.sessions.import_rows(rows, "/tmp") == sid
    assert [row async for row in other.sessions.export_rows(sid)] == rows
    with pytest.raises(SessionAlreadyHere):
        await other.sessions.import_rows(rows, "/tmp")
    assert (await other.sessions.search("capacitor")).hits[0][0] == sid


async def test_models_and_selection(engine_factory: Factory, scripted_llm: Any, tmp_path: Path) -> None:
    engine = await engine_factory(tools={})
    sid = await engine.sessions.create_session("/tmp")
    value = await engine.config.models(sid)
    assert value.current.provider == "openai-compatible" and value.current.model == "scripted-small"
    assert value.routable
    group = next(g for g in value.groups if g.id == "openai-compatible")
    assert [m.id for m in group.models] == ["scripted-small", "scripted-large"]  # the endpoint's list
    models = [
        {"id": "scripted-small"},
        {"id": "thinker", "name": "Thinker", "reasoningEfforts": ["low", "high"]},
    ]
    profile = {"id": "box", "name": "Box", "baseURL": scripted_llm.base_url, "models": models}
    await engine.config.update_settings("llm-openai-compatible", {"profiles": [profile]}, None)
    box = next(g for g in (await engine.config.models(sid)).groups if g.id == "box")
    assert box.name == "Box" and [(m.id, m.name) for m in box.models] == [
        ("scripted-small", "scripted-small"),
        ("thinker", "Thinker"),
    ]
    reasoning = box.models[1].reasoning
    assert reasoning is not None and [e.id for e in reasoning.efforts] == ["low", "high"]
    with pytest.raises(ModelUnavailable):
        await engine.config.select_model(sid, "no-such-provider", "m")
    with pytest.raises(ModelUnavailable, match="takes one of low, high"):
        await engine.config.select_model(sid, "box", "thinker", "ultra")
    with pytest.raises(ModelUnavailable, match="takes no reasoning effort"):
        await engine.config.select_model(sid, "box", "unlisted-model", "high")
    assert (
        await engine.config.select_model(sid, "box", "unlisted-model")
    ).model == "unlisted-model"  # advice only
    chosen = await engine.config.select_model(sid, "box", "thinker", "high")
    assert (await engine.config.models(sid)).current == chosen
    settings = json.loads((tmp_path / "data" / "settings.json").read_text())
    saved = settings["namespaces"]["agent-default-model"]
    assert saved == {"provider": "box", "model": "thinker", "reasoningEffort": "high"}
    fresh = await engine.sessions.create_session("/tmp")
    assert (
        await engine.config.models(fresh)
    ).current == chosen  # the new host default, flags no longer mask it
    scripted_llm.enqueue(Reply(text="ok"))
    mux = engine.host.subscribe_mux()
    await engine.agents.prompt(sid, "queue", [TextInput(text="hi")], "r")
    frames = await frames_until(mux, is_event("turn/end"))
    header = next(e for e in events_of(frames) if e.type == "request/header")
    assert header.data["provider"] == "box" and header.data["reasoningEffort"] == "high"
    assert scripted_llm.requests[-1]["reasoning_effort"] == "high"
    described = engine.host.describe()
    assert described.attached_sessions == 1 and described.host_instance_id.startswith("host-")
    await engine.config.replace_settings("llm-openai-compatible", {}, None)  # the default's route goes away
    orphan = await engine.sessions.create_session("/tmp")
    current = (await engine.config.models(orphan)).current
    assert (current.provider, current.model) == ("openai-compatible", "scripted-small")  # the flags'


async def test_queue_edits_and_mux_snapshot(engine_factory: Factory, scripted_llm: Any) -> None:
    scripted_llm.enqueue(Reply(text="slow " * 40, hang_after=2), Reply(text="b"))
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(sid, "queue", [TextInput(text="a")], "r1")
    await frames_until(mux, is_event("assistant/chunk"))
    one = await engine.agents.prompt(sid, "queue", [TextInput(text="b")], "r2")
    two = await engine.agents.prompt(sid, "queue", [TextInput(text="c")], "r3")
    late = engine.host.subscribe_mux()
    first = [late.get_nowait()[1] for _ in range(2)]
    last_seq = agent_of(engine, sid).journal.last_seq
    assert isinstance(first[0], SessionSubscribed) and first[0].last_seq == last_seq
    assert isinstance(first[1], SessionQueue) and [i.id for i in first[1].items] == [one, two]
    await engine.agents.update_queue(sid, one, RemoveAction())
    with pytest.raises(QueueItemNotFound):
        await engine.agents.update_queue(sid, one, RemoveAction())
    await engine.agents.update_queue(sid, two, SteerAction())  # promoted into the running turn
    assert [(i.id, i.placement) for i in queued(engine, sid)] == [(two, "steering")]
    await engine.agents.update_queue(sid, two, SteerAction())  # already steering: accepted, unchanged
    assert [(i.id, i.placement) for i in queued(engine, sid)] == [(two, "steering")]
    nxt = late.get_nowait()[1]
    assert isinstance(nxt, SessionEventFrame) or isinstance(nxt, SessionQueue)
    await engine.agents.cancel(sid)
    await wait_quiet(agent_of(engine, sid))
    cold = await engine.sessions.create_session("/tmp")
    with pytest.raises(QueueItemNotFound):
        await engine.agents.update_queue(cold, "x", RemoveAction())


async def test_a_failed_write_surfaces_as_agent_error(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory(tools={})
    host = engine.host.subscribe_host()
    sid = await engine.sessions.create_session("/tmp")
    await engine.sessions.rename(sid, "first")
    await engine.parts.store.flush()
    # another writer (e.g. a second host on the same data dir) takes the next seq behind our back
    conn = sqlite3.connect(tmp_path / "data" / DB_FILE)
    conn.execute("INSERT INTO events VALUES (?, 1, 'x/foreign', 0, '{}')", (sid,))
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="seq gap"):  # the answer waits for the write: not saved
        await engine.sessions.rename(sid, "second")
    frames = await frames_until(host, lambda f: f.type == "host/agent-error")
    assert frames[-1].session_id == sid and "seq gap" in frames[-1].message


async def test_a_fork_of_the_first_turn_keeps_the_parent_title_marked_as_a_fork(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    scripted_llm.enqueue(Reply(text="an answer"))
    engine = await engine_factory(tools={})
    sid = await engine.sessions.create_session(str(tmp_path))
    mux = engine.host.subscribe_mux()
    await engine.agents.prompt(sid, "queue", [TextInput(text="Plan the garden shed")], "r1")
    await frames_until(mux, lambda f: f.type == "session/projection" and f.key == "title")
    child = await engine.sessions.fork(sid, at_seq=0)  # the first (and only) turn
    summary = next(s for s in await engine.sessions.list_sessions() if s.session_id == child)
    assert summary.title == "Plan the garden shed (fork)"  # two rows never read the same
    events, _, projections = await engine.sessions.history(child)
    assert [e.type for e in events][-2:] == ["session/end-seed", "session/title"]
    assert projections is not None and projections.values["title"] == "Plan the garden shed (fork)"
    assert {"title", "context"} <= set(projections.values)  # context: the copied answer's usage, cold
