"""Each v1 method's success path and its typed error codes, over both carriers
(docs/architecture.md, "Method map")."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from contract import __version__
from contract.methods import (
    CREDENTIALS_SET,
    CREDENTIALS_UNSET,
    HOST_DESCRIBE,
    METHODS,
    SESSION_ATTACHMENT,
    SESSION_CANCEL,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_MODELS,
    SESSION_PROMPT,
    SESSION_RENAME,
    SESSION_SELECT_MODEL,
    SESSION_UPDATE_QUEUE,
)
from tests.api.conftest import MODEL, Host
from tests.api.support import (
    b64,
    err,
    event,
    events_of,
    image_input,
    ok,
    page_events,
    png,
    prompt,
    run_turn,
    text,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

UNKNOWN = "s-does-not-exist"


async def test_create_list_and_describe(host: Host) -> None:
    client = host.client()
    assert (await ok(client, SESSION_LIST)).items == []
    sid = await host.create()
    listed = (await ok(client, SESSION_LIST, {"cursor": "ignored"})).items
    assert [s.session_id for s in listed] == [sid]
    summary = listed[0]
    assert summary.blank is True and summary.running is False
    assert summary.cwd == str(host.workdir) and summary.parent_session_id is None
    described = await ok(client, HOST_DESCRIBE)
    assert described.version == __version__
    assert described.cwd == os.getcwd() and described.home == str(Path.home())
    assert (described.provider, described.model) == ("openai-compatible", MODEL)
    assert described.attached_sessions == 0  # lazy: creating does not attach
    assert described.host_instance_id.startswith("host-")
    assert (await ok(client, HOST_DESCRIBE)).host_instance_id == described.host_instance_id


async def test_create_with_a_preallocated_id_is_idempotent_then_conflicts(host: Host, tmp_path: Path) -> None:
    client = host.client()
    sid = "s-preallocated-1"
    payload = {"cwd": str(host.workdir), "sessionId": sid}
    assert (await ok(client, SESSION_CREATE, payload)).session_id == sid
    assert (await ok(client, SESSION_CREATE, payload)).session_id == sid  # same cwd: the same session
    other = tmp_path / "elsewhere"
    error = await err(client, SESSION_CREATE, {"cwd": str(other), "sessionId": sid}, "session-conflict")
    assert error.details == {
        "sessionId": sid,
        "requestedCwd": str(other),
        "existingCwd": str(host.workdir),
    }
    assert len((await ok(client, SESSION_LIST)).items) == 1


async def test_prompt_runs_a_turn_and_the_list_follows_activity(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="first answer"), Reply(text="second answer"))
    client = host.client()
    mux = await host.mux(client)
    first, second = await host.create(), await host.create()
    events = await run_turn(client, mux, first, "hello there")
    turn = [e.type for e in events].index("turn/start")
    assert [e.type for e in events][turn : turn + 2] == ["turn/start", "user/message"]
    assert events[turn - 1].type == "agent/inbox/spliced"  # the claim, written with the turn start
    user = events[turn + 1].data
    assert user["content"] == [{"type": "text", "text": "hello there"}]
    assert user["source"]["kind"] == "user" and user["source"]["rpcId"]
    final = next(e for e in events if e.type == "assistant/message")
    assert final.data["message"]["content"] == [{"type": "text", "text": "first answer"}]
    assert next(e for e in events if e.type == "turn/end").data["reason"] == {"kind": "completed"}
    await asyncio.sleep(0.01)  # activity times are in ms
    await run_turn(client, mux, second, "and now you")
    listed = (await ok(client, SESSION_LIST)).items
    assert [s.session_id for s in listed] == [second, first]  # newest activity first
    by_id = {s.session_id: s for s in listed}
    assert by_id[first].blank is False and by_id[first].title == "hello there"
    assert by_id[first].updated_at <= by_id[second].updated_at
    assert (await ok(client, HOST_DESCRIBE)).attached_sessions == 2  # both ran a turn
    assert llm.requests[0]["model"] == MODEL and llm.requests[0]["messages"][-1]["content"] == "hello there"


async def test_unknown_session_is_session_not_found_for_every_method(host: Host) -> None:
    client = host.client()
    calls: list[tuple[str, dict[str, Any]]] = [
        ("session.history", {}),
        ("session.prompt", {"mode": "queue", "content": text("hi")}),
        ("session.cancel", {}),
        ("session.rename", {"title": "x"}),
        ("session.fork", {}),
        ("session.models", {}),
        ("session.selectModel", {"provider": "openai-compatible", "model": "m"}),
        ("session.updateQueue", {"itemId": "q-1", "action": {"kind": "remove"}}),
        ("session.attachment", {"attachmentId": "sha256-00"}),
    ]
    for key, extra in calls:
        error = await err(client, METHODS[key], {"sessionId": UNKNOWN, **extra}, "session-not-found")
        assert error.details == {"sessionId": UNKNOWN}, key
    assert (await ok(client, SESSION_LIST)).items == []  # nothing was created on the way


BAD_PAYLOADS: list[tuple[str, dict[str, Any]]] = [
    ("session.list", {"unknown": 1}),
    ("session.create", {"cwd": ""}),
    ("session.create", {"sessionId": "../etc/passwd"}),
    ("session.history", {"sessionId": "SID", "maxMessages": 0}),
    ("session.history", {"sessionId": "SID", "beforeSeq": -1}),
    ("session.history", {"sessionId": "SID", "extra": True}),
    ("session.prompt", {"sessionId": "SID", "mode": "shout", "content": text("x")}),
    ("session.prompt", {"sessionId": "SID", "mode": "queue", "content": []}),
    ("session.prompt", {"sessionId": "SID", "mode": "queue", "content": [{"type": "video", "data": ""}]}),
    (
        "session.prompt",
        {
            "sessionId": "SID",
            "mode": "queue",
            "content": [{"type": "image", "mediaType": "image/bmp", "data": ""}],
        },
    ),
    ("session.cancel", {}),
    ("session.rename", {"sessionId": "SID"}),
    ("session.rename", {"sessionId": "SID", "title": "x" * 1001}),
    ("session.fork", {"sessionId": "SID", "atSeq": -1}),
    ("session.search", {"query": ""}),
    ("session.search", {"query": "   \t "}),
    ("session.search", {"query": "a\x00b"}),
    ("session.search", {"query": "x" * 501}),
    ("session.models", {"sessionId": 7}),
    ("session.selectModel", {"sessionId": "SID", "provider": "", "model": "m"}),
    ("session.updateQueue", {"sessionId": "SID", "itemId": "q", "action": {"kind": "explode"}}),
    ("session.updateQueue", {"sessionId": "SID", "itemId": "q", "action": {"kind": "edit", "content": []}}),
    ("session.attachment", {"sessionId": "SID"}),
    ("host.describe", {"verbose": True}),
]


async def test_bad_payloads_are_bad_request_with_issues(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    for key, payload in BAD_PAYLOADS:
        filled = json.loads(json.dumps(payload).replace('"SID"', json.dumps(sid)))
        error = await err(client, METHODS[key], filled, "bad-request")
        assert isinstance(error.details["issues"], list) and error.details["issues"], (key, payload)
    events = page_events(await ok(client, SESSION_HISTORY, {"sessionId": sid}))
    assert events == []  # no bad request reached the engine


async def test_invalid_time_zone(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    base = {"sessionId": sid, "mode": "queue", "content": text("tz")}
    for bad in ("Mars/Olympus_Mons", "Europe/../../etc/passwd", "EST5EDT ", "utc", "+02:00", ""):
        error = await err(client, SESSION_PROMPT, {**base, "clientTimeZone": bad}, "invalid-time-zone")
        assert error.details == {"value": bad}
    for good in ("UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires"):
        await prompt(client, sid, f"tz {good}", clientTimeZone=good)
        _, frame = await mux.next(event("user/message", sid))
        assert frame.event.data["source"]["clientTimeZone"] == good
        await mux.next(event("turn/end", sid))


async def test_rename_normalises_pins_and_projects(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "an auto title from these words")
    _, auto = await mux.next(
        lambda f: f.type == "session/projection" and f.session_id == sid and f.key == "title"
    )
    assert auto.value == "an auto title from these words"
    renamed = await ok(client, SESSION_RENAME, {"sessionId": sid, "title": "  My \n\t title\u200b  "})
    assert renamed.title == "My title"
    _, logged = await mux.next(event("session/title", sid))
    assert logged.event.seq == renamed.seq
    assert logged.event.data == {"title": "My title", "source": {"kind": "user"}}
    _, frame = await mux.next(
        lambda f: f.type == "session/projection" and f.session_id == sid and f.key == "title"
    )
    assert (frame.value, frame.seq) == ("My title", renamed.seq)
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    assert history.projections is not None
    assert history.projections.values["title"] == "My title"
    assert history.projections is not None
    assert history.projections.values["permissions"]["currentValue"] == "workspace-write"
    assert history.projections is not None
    assert set(history.projections.values["context"]) == {"tokens", "window"}
    assert history.projections is not None
    assert history.projections.as_of_seq == page_events(history)[-1].seq == renamed.seq
    assert (await ok(client, SESSION_LIST)).items[0].title == "My title"
    await run_turn(client, mux, sid, "a second turn must not replace a user title")
    assert (await ok(client, SESSION_LIST)).items[0].title == "My title"
    for blank in ("   ", "\u200b\u200d", "\n\t"):
        error = await err(client, SESSION_RENAME, {"sessionId": sid, "title": blank}, "title-invalid")
        assert error.details == {"sessionId": sid}


async def test_rename_of_a_blank_session(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    renamed = await ok(client, SESSION_RENAME, {"sessionId": sid, "title": "Named first"})
    assert renamed == type(renamed)(title="Named first", seq=0)
    assert (await ok(client, SESSION_LIST)).items[0].title == "Named first"


async def test_cancel_of_an_idle_session_is_a_no_op(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    assert (await ok(client, SESSION_CANCEL, {"sessionId": sid})).accepted is True
    assert page_events(await ok(client, SESSION_HISTORY, {"sessionId": sid})) == []


async def test_models_and_select_model(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    models = await ok(client, SESSION_MODELS, {"sessionId": sid})
    assert models.current.model_dump() == {
        "provider": "openai-compatible",
        "model": MODEL,
        "reasoning_effort": None,
    }
    assert models.routable is True
    groups = {g.id: [m.id for m in g.models] for g in models.groups}
    assert groups["openai-compatible"] == ["scripted-small", "scripted-large"]  # from GET /v1/models
    assert "deepseek" not in groups and models.failures == []  # no key: the route is not active
    chosen = await ok(
        client,
        SESSION_SELECT_MODEL,
        {"sessionId": sid, "provider": "openai-compatible", "model": "not-in-the-catalog"},
    )
    assert chosen.selected.model_dump() == {
        "provider": "openai-compatible",
        "model": "not-in-the-catalog",
        "reasoning_effort": None,
    }
    assert (await ok(client, SESSION_MODELS, {"sessionId": sid})).current == chosen.selected
    events = await run_turn(client, mux, sid, "which model?")
    header = next(e for e in events if e.type == "request/header").data
    assert (header["provider"], header["model"]) == ("openai-compatible", "not-in-the-catalog")
    assert llm.requests[-1]["model"] == "not-in-the-catalog"
    # the choice becomes the host default for new sessions
    fresh = await host.create()
    assert (await ok(client, SESSION_MODELS, {"sessionId": fresh})).current.model == "not-in-the-catalog"
    assert (await ok(client, HOST_DESCRIBE)).model == "not-in-the-catalog"


async def test_select_model_unavailable(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    cases = [
        ({"provider": "nope", "model": "m"}, {"provider": "nope", "model": "m"}),
        (
            {"provider": "openai-compatible", "model": "m", "reasoningEffort": "extreme"},
            {"provider": "openai-compatible", "model": "m"},
        ),
        (
            {"provider": "deepseek", "model": "deepseek-chat"},
            {"provider": "deepseek", "model": "deepseek-chat"},
        ),
    ]
    for payload, details in cases:
        error = await err(client, SESSION_SELECT_MODEL, {"sessionId": sid, **payload}, "model-unavailable")
        assert error.details == details
    current = (await ok(client, SESSION_MODELS, {"sessionId": sid})).current
    assert (current.provider, current.model) == ("openai-compatible", MODEL)  # nothing changed


async def test_prompt_on_a_provider_whose_key_went_missing_is_model_unavailable(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    await ok(client, CREDENTIALS_SET, {"ref": "DEEPSEEK_API_KEY", "value": "sk-test-key-123456"})
    await ok(
        client, SESSION_SELECT_MODEL, {"sessionId": sid, "provider": "deepseek", "model": "deepseek-chat"}
    )
    await ok(client, CREDENTIALS_UNSET, {"ref": "DEEPSEEK_API_KEY"})
    payload = {"sessionId": sid, "mode": "queue", "content": text("hi")}
    error = await err(client, SESSION_PROMPT, payload, "model-unavailable")
    assert error.details == {"provider": "deepseek", "model": "deepseek-chat"}
    models = await ok(client, SESSION_MODELS, {"sessionId": sid})
    assert models.routable is False and models.current.provider == "deepseek"


async def test_update_queue_edit_remove_steer_and_not_found(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="streaming forever", hang_after=1))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await prompt(client, sid, "first")
    await mux.next(event("assistant/chunk", sid))  # the turn is open and waiting on the model
    await prompt(client, sid, "second")
    await prompt(client, sid, "third")
    _, snapshot = await mux.next(lambda f: f.type == "session/queue" and len(f.items) == 2)
    second, third = (item.id for item in snapshot.items)
    assert [i.message.content[0].text for i in snapshot.items] == ["second", "third"]
    assert [i.message.id for i in snapshot.items] == [second, third]  # the id is the message's
    edit = {"kind": "edit", "content": text("second, edited")}
    await ok(client, SESSION_UPDATE_QUEUE, {"sessionId": sid, "itemId": second, "action": edit})
    _, edited = await mux.next(lambda f: f.type == "session/queue")
    assert [(i.id, i.message.content[0].text) for i in edited.items] == [
        (second, "second, edited"),
        (third, "third"),
    ]
    await ok(client, SESSION_UPDATE_QUEUE, {"sessionId": sid, "itemId": third, "action": {"kind": "remove"}})
    _, removed = await mux.next(lambda f: f.type == "session/queue")
    assert [i.id for i in removed.items] == [second]
    for gone in (third, "q-never-existed"):
        payload = {"sessionId": sid, "itemId": gone, "action": {"kind": "remove"}}
        error = await err(client, SESSION_UPDATE_QUEUE, payload, "queue-item-not-found")
        assert error.details == {"itemId": gone}
    await ok(client, SESSION_UPDATE_QUEUE, {"sessionId": sid, "itemId": second, "action": {"kind": "steer"}})
    _, steered = await mux.next(lambda f: f.type == "session/queue")
    assert [(i.id, i.placement) for i in steered.items] == [(second, "steering")]  # for the running turn
    await ok(client, SESSION_CANCEL, {"sessionId": sid, "clearQueue": True})
    _, cleared = await mux.next(lambda f: f.type == "session/queue")
    assert cleared.items == []
    payload = {"sessionId": sid, "itemId": second, "action": {"kind": "steer"}}
    await err(client, SESSION_UPDATE_QUEUE, payload, "queue-item-not-found")  # gone
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"] == {"kind": "aborted", "by": "user"}


async def test_update_queue_on_a_session_without_an_agent(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    payload = {"sessionId": sid, "itemId": "q-1", "action": {"kind": "steer"}}
    error = await err(client, SESSION_UPDATE_QUEUE, payload, "queue-item-not-found")
    assert error.details == {"itemId": "q-1"}


async def test_image_prompt_and_attachment(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid, other = await host.create(), await host.create()
    image = png(3, 2)
    payload = {
        "sessionId": sid,
        "mode": "queue",
        "content": [*text("what is this?"), image_input(image, name="dot.png")],
    }
    await ok(client, SESSION_PROMPT, payload)
    _, user = await mux.next(event("user/message", sid))
    block = user.event.data["content"][1]
    assert block["type"] == "image"
    ref = block["attachment"]
    assert ref["attachmentId"].startswith("sha256-")
    assert {k: ref[k] for k in ("mediaType", "bytes", "width", "height", "name")} == {
        "mediaType": "image/png",
        "bytes": len(image),
        "width": 3,
        "height": 2,
        "name": "dot.png",
    }
    assert b64(image) not in json.dumps(user.event.data)  # the log holds a reference, never base64
    await mux.next(event("turn/end", sid))
    sent = json.dumps(llm.requests[0]["messages"])
    assert b64(image) in sent  # the model saw the image itself
    got = await ok(client, SESSION_ATTACHMENT, {"sessionId": sid, "attachmentId": ref["attachmentId"]})
    assert base64.b64decode(got.data) == image
    stored = got.attachment.model_dump(by_alias=True, exclude_none=True)
    stored.pop("name", None)  # content-addressed: the name belongs to the message's reference
    assert stored == {k: v for k, v in ref.items() if k != "name"}
    # another session does not reference it, and unknown ids are refused alike
    for session, attachment_id in ((other, ref["attachmentId"]), (sid, "sha256-" + "0" * 64)):
        payload = {"sessionId": session, "attachmentId": attachment_id}
        error = await err(client, SESSION_ATTACHMENT, payload, "attachment-error")
        assert error.details["reason"]


async def test_bad_images_are_attachment_errors(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    cases = [
        image_input(png(), media_type="image/jpeg"),  # the bytes are a PNG
        image_input(png()[:20], media_type="image/png"),  # cut inside the header
        image_input(b"plain text, not an image", media_type="image/webp"),
        {"type": "image", "mediaType": "image/png", "data": "***not base64***"},
    ]
    for image in cases:
        payload = {"sessionId": sid, "mode": "queue", "content": [*text("look"), image]}
        error = await err(client, SESSION_PROMPT, payload, "attachment-error")
        assert set(error.details) == {"reason"} and error.details["reason"]
    assert page_events(await ok(client, SESSION_HISTORY, {"sessionId": sid})) == []


async def test_too_large_image_is_an_attachment_error(host: Host) -> None:
    client = host.client()
    sid = await host.create()
    huge = "A" * (20 * 1024 * 1024 * 4 // 3 + 400)  # base64 of just over 20 MiB
    payload = {
        "sessionId": sid,
        "mode": "queue",
        "content": [{"type": "image", "mediaType": "image/png", "data": huge}],
    }
    error = await err(client, SESSION_PROMPT, payload, "attachment-error")
    assert "20 MiB" in error.details["reason"]


@pytest.mark.parametrize("mode", ["queue", "steer"])
async def test_prompt_modes_on_an_idle_session_start_a_turn(host: Host, mode: str) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await prompt(client, sid, f"via {mode}", mode=mode)
    _, start = await mux.next(event("turn/start", sid))
    assert start.event.data["trigger"] == ("user" if mode == "queue" else "steer")
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"] == {"kind": "completed"}
    types = [e.type for e in events_of(mux.frames, sid)]
    assert types.count("user/message") == 1 and "steering/message" not in types  # an ordinary turn
