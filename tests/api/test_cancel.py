"""`session.cancel` while the model streams and while a tool runs (docs/architecture.md,
"Agents", "Tools")."""

from __future__ import annotations

import json
import time
from pathlib import Path

from contract.methods import SESSION_CANCEL, SESSION_HISTORY, SESSION_PROMPT
from tests.api.conftest import Host
from tests.api.support import (
    event,
    events_of,
    eventually,
    ftype,
    ok,
    page_events,
    process_gone,
    prompt,
    run_turn,
    text,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer

BOUND = 5.0
"""Generous: a cancel must end the turn well within this (it takes milliseconds)."""


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(stat.parent.name))
    return members


async def test_cancel_during_a_streaming_reply_keeps_the_queue(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="word " * 400, chunk_size=3, delay=0.02), Reply(text="the queued one ran"))
    client = host.client()
    mux = await host.mux(client)
    hosts = await host.host_stream(client)
    sid = await host.create()
    await prompt(client, sid, "talk for a long time")
    for _ in range(3):
        await mux.next(
            lambda f: event("assistant/chunk", sid)(f) and f.event.data["chunk"]["type"] == "text-delta"
        )
    await prompt(client, sid, "queued behind it")
    _, queue = await mux.next(lambda f: f.type == "session/queue" and f.items)
    queued_id = queue.items[0].id
    assert (
        queue.items[0].placement == "queued" and queue.items[0].message.content[0].text == "queued behind it"
    )
    started = time.monotonic()
    assert (await ok(client, SESSION_CANCEL, {"sessionId": sid})).accepted is True
    _, end = await mux.next(event("turn/end", sid), within=BOUND)
    assert time.monotonic() - started < BOUND
    assert end.event.data["reason"] == {"kind": "aborted", "by": "user"}
    assert llm.wait_for_disconnects(1, timeout=BOUND)  # the model's HTTP stream was closed at once
    # only the turn was aborted: the queued prompt starts next, with the same message id
    _, nxt = await mux.next(event("turn/start", sid), within=BOUND)
    assert nxt.event.data == {"turn": 1, "trigger": "queue"}
    _, user = await mux.next(event("user/message", sid))
    assert user.event.data["id"] == queued_id
    await mux.next(event("turn/end", sid))
    await hosts.seen(lambda f: f.type == "host/session-status" and f.session_id == sid and not f.running)
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    ends = [e.data["reason"]["kind"] for e in page_events(history) if e.type == "turn/end"]
    assert ends == ["aborted", "completed"]
    first = [e for e in page_events(history) if e.type == "assistant/message" and e.data["turn"] == 0]
    assert first and all(m.data.get("interrupted") is True for m in first)
    # the session is usable again
    llm.enqueue(Reply(text="fresh start"))
    events = await run_turn(client, mux, sid, "again")
    assert next(e for e in events if e.type == "turn/end").data["reason"] == {"kind": "completed"}


async def test_cancel_during_a_running_tool_kills_its_process_group(
    host: Host, llm: ScriptedLlmServer
) -> None:
    command = "echo $$ > shell.pid; sleep 30 & echo $! > sleep.pid; wait"
    llm.enqueue(Reply(tool_calls=[("c1", "bash", json.dumps({"command": command}))]))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await prompt(client, sid, "sleep a while")
    rpc_id, frame = await mux.next(ftype("approval/requested", sid))
    value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-once"}
    assert (await client.respond(rpc_id, {"ok": True, "value": value})).accepted is True
    sleep_pid_file = host.workdir / "sleep.pid"
    assert await eventually(lambda: sleep_pid_file.exists() and sleep_pid_file.read_text().strip() != "")
    shell = int((host.workdir / "shell.pid").read_text())
    sleeper = int(sleep_pid_file.read_text())
    assert not process_gone(sleeper) and shell in group_members(shell) and sleeper in group_members(shell)
    started = time.monotonic()
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    _, end = await mux.next(event("turn/end", sid), within=BOUND)
    assert end.event.data["reason"] == {"kind": "aborted", "by": "user"}
    assert time.monotonic() - started < BOUND
    assert await eventually(lambda: process_gone(shell) and process_gone(sleeper), within=BOUND)
    assert group_members(shell) == []  # the whole process group is gone
    turn = events_of(mux.frames, sid)
    calls = [e.data["callId"] for e in turn if e.type == "tool/call"]
    results = [e for e in turn if e.type == "tool/result"]
    assert calls == ["c1"] and len(results) == 1  # no tool call is left without its result
    assert results[0].data.get("error", {}).get("code")


async def test_cancel_keeps_waiting_steering_as_the_next_turn_and_clear_queue_drops_it(
    host: Host, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(text="slow " * 200, chunk_size=2, delay=0.02), Reply(text="steered turn"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await prompt(client, sid, "start")
    await mux.next(event("assistant/chunk", sid))
    payload = {"sessionId": sid, "mode": "steer", "content": text("steer this way")}
    await ok(client, SESSION_PROMPT, payload)
    _, steering = await mux.next(lambda f: f.type == "session/queue" and f.items)
    assert [i.placement for i in steering.items] == ["steering"]
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    _, end = await mux.next(event("turn/end", sid), within=BOUND)
    assert end.event.data["reason"] == {"kind": "aborted", "by": "user"}
    _, moved = await mux.next(lambda f: f.type == "session/queue" and f.items)
    assert [(i.id, i.placement) for i in moved.items] == [(steering.items[0].id, "queued")]
    _, user = await mux.next(event("user/message", sid))
    assert user.event.data["content"][0]["text"] == "steer this way"
    await mux.next(event("turn/end", sid))
    # Stop that also clears: nothing that was waiting runs
    llm.enqueue(Reply(text="slow " * 200, chunk_size=2, delay=0.02))
    await prompt(client, sid, "again")
    await mux.next(lambda f: event("assistant/chunk", sid)(f) and f.event.data["turn"] == 2)
    await prompt(client, sid, "never runs")
    await ok(client, SESSION_PROMPT, {**payload, "content": text("never steers")})
    await ok(client, SESSION_CANCEL, {"sessionId": sid, "clearQueue": True})
    _, end = await mux.next(event("turn/end", sid), within=BOUND)
    _, cleared = await mux.seen(lambda f: f.type == "session/queue" and not f.items)
    assert cleared.items == []
    history = await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 100})
    types = [e.type for e in page_events(history)]
    assert types.count("turn/start") == 3 and "steering/message" not in types
    assert page_events(history)[-1].type == "turn/end"
