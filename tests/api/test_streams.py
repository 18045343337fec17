"""`events.mux` (subscribed, replay with the original rpcIds, live) and `events.host` (edges),
and fan-out that does not let a slow subscriber stall the others (docs/architecture.md,
"Stream frames")."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from contract.methods import SESSION_CANCEL, SESSION_FORK, SESSION_HISTORY, SESSION_UPDATE_QUEUE
from tests.api.conftest import Host, tiny_queue_app
from tests.api.support import Frames, event, events_of, ftype, ok, page_events, prompt, run_turn, text
from tests.support.scripted_llm import Reply, ScriptedLlmServer

QUESTION = {
    "questions": [
        {"id": "pick", "question": "Which one?", "options": [{"label": "left"}, {"label": "right"}]},
    ]
}


async def settle(frames: Frames, count: int, quiet: float = 0.3) -> list[Any]:
    """Wait until `frames` holds `count` items, then make sure no more arrive for `quiet` s."""
    for _ in range(200):
        if len(frames.items) >= count:
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(quiet)
    return frames.frames


async def test_fresh_mux_replays_pending_requests_with_their_original_rpc_ids(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client = host.client()
    live = await host.mux(client)
    approving, asking, idle = await host.create(), await host.create(), await host.create()
    # one scripted reply at a time: the server answers requests FIFO across sessions
    llm.enqueue(Reply(tool_calls=[("c1", "bash", '{"command": "echo approved"}')]))
    await prompt(client, approving, "run something")
    approval_rpc, approval = await live.next(ftype("approval/requested", approving))
    llm.enqueue(Reply(tool_calls=[("q1", "ask_user", json.dumps(QUESTION))]))
    await prompt(client, asking, "ask me")
    question_rpc, question = await live.next(ftype("question/requested", asking))
    await run_turn(client, live, idle, "just talk")
    await live.next(event("session/title", idle))

    other = host.client()
    fresh = await host.mux(other)
    snapshot = await settle(fresh, 8)
    assert [f.type for f in snapshot] == [
        "session/subscribed",
        "approval/requested",
        "session/queue",
        "session/subscribed",
        "question/requested",
        "session/queue",
        "session/subscribed",
        "session/queue",
    ]
    assert [f.session_id for f in snapshot] == [approving] * 3 + [asking] * 3 + [idle] * 2
    for sid, subscribed in ((approving, snapshot[0]), (asking, snapshot[3]), (idle, snapshot[6])):
        tail = await ok(other, SESSION_HISTORY, {"sessionId": sid})
        assert subscribed.last_seq == page_events(tail)[-1].seq
    assert fresh.items[1] == (approval_rpc, approval)  # the same stable rpcId and payload
    assert fresh.items[4] == (question_rpc, question)
    assert all(f.items == [] for f in (snapshot[2], snapshot[5], snapshot[7]))
    pushes = [rpc for rpc, f in fresh.items if f.type in ("session/subscribed", "session/queue")]
    assert len(set(pushes)) == len(pushes) and not set(pushes) & {approval_rpc, question_rpc}

    # then live frames: answers from the second client converge both streams
    fresh.cursor = len(fresh.items)
    llm.enqueue(Reply(text="ran"))
    value = {"sessionId": approving, "approvalId": approval.approval_id, "outcome": "allowed-once"}
    assert (await other.respond(approval_rpc, {"ok": True, "value": value})).accepted is True
    for stream in (fresh, live):
        _, resolved = await stream.next(ftype("approval/resolved", approving))
        assert (resolved.approval_id, resolved.outcome) == (approval.approval_id, "allowed-once")
        _, end = await stream.next(event("turn/end", approving))
        assert end.event.data["reason"] == {"kind": "completed"}
    llm.enqueue(Reply(text="noted"))
    answer = {"sessionId": asking, "answer": {"answers": [{"id": "pick", "selected": ["right"]}]}}
    assert (await client.respond(question_rpc, {"ok": True, "value": answer})).accepted is True
    for stream in (fresh, live):
        _, resolved = await stream.next(ftype("question/resolved", asking))
        assert (resolved.question_rpc_id, resolved.outcome) == (question_rpc, "answered")

    # a session that attaches while the stream is open: subscribed first, then its events
    late = await host.create()
    start = len(fresh.items)
    await run_turn(other, fresh, late, "late comer")
    own = [f for f in fresh.since(start) if getattr(f, "session_id", None) == late]
    assert own[0].type == "session/subscribed" and own[0].last_seq == -1
    assert events_of(own)[0].seq == 0
    await fresh.seen(event("session/title", late))  # written after the turn ends
    await fresh.seen(event("session/title", asking))

    # nothing pending any more: a third stream replays no requests
    third = await host.mux(host.client())
    replayed = await settle(third, 8)
    assert {f.type for f in replayed} == {"session/subscribed", "session/queue"}
    assert len([f for f in replayed if f.type == "session/subscribed"]) == 4


async def test_mux_carries_every_frame_of_a_turn_in_log_order(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="ordered", chunk_size=1))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "order please")
    streamed = events_of(mux.frames, sid)
    stored = page_events(await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 10_000}))
    assert [e.dump() for e in streamed] == [e.dump() for e in stored[: len(streamed)]]
    assert [e.seq for e in streamed] == list(range(len(streamed)))


async def test_events_host_added_and_status_edges(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="one two three four", delay=0.05), Reply(text="two"))
    client = host.client()
    hosts = await host.host_stream(client)
    mux = await host.mux(client)
    sid = await host.create()
    _, added = await hosts.next(ftype("host/session-added", sid))
    assert (added.blank, added.cwd, added.parent_session_id) == (True, str(host.workdir), None)
    await prompt(client, sid, "first")
    await mux.next(event("assistant/chunk", sid))  # still streaming (slowly) when the next arrives
    await prompt(client, sid, "second, queued behind the first")
    for _ in range(2):
        await mux.next(event("turn/end", sid))
    _, down = await hosts.next(lambda f: f.type == "host/session-status" and not f.running)
    statuses = [f.running for f in hosts.frames if f.type == "host/session-status"]
    assert statuses == [True, False]  # back-to-back turns are one running interval
    child = (await ok(client, SESSION_FORK, {"sessionId": sid})).session_id
    _, forked = await hosts.next(ftype("host/session-added", child))
    assert (forked.parent_session_id, forked.blank) == (sid, False)
    await run_turn(client, mux, child, "in the child")
    _, up = await hosts.next(ftype("host/session-status", child))
    _, down = await hosts.next(ftype("host/session-status", child))
    assert (up.running, down.running) == (True, False)
    assert not [f for f in hosts.frames if f.type.startswith("session/")]  # host frames only


async def test_a_slow_subscriber_is_cut_off_while_others_keep_receiving(
    host: Host, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(text="hold the turn open", hang_after=1))
    await host.add_app("tiny", tiny_queue_app(host, limit=3))
    client = host.client()
    fast = await host.mux(client)
    slow = host.client("tiny").stream("events.mux")
    await slow.open()  # subscribed, and then never read while the flood goes by
    sid = await host.create()
    await prompt(client, sid, "first")
    await fast.next(event("assistant/chunk", sid))
    await prompt(client, sid, "queued")
    _, queued = await fast.next(lambda f: f.type == "session/queue" and f.items)
    item = queued.items[0].id
    bulk = "x" * 256 * 1024
    edits = 80
    for n in range(edits):
        edit = {"kind": "edit", "content": text(f"{n}:{bulk}")}
        await ok(client, SESSION_UPDATE_QUEUE, {"sessionId": sid, "itemId": item, "action": edit})
    last = f"{edits - 1}:"
    await fast.next(
        lambda f: (
            f.type == "session/queue" and f.items and f.items[0].message.content[0].text.startswith(last)
        )
    )
    received = [f for f in fast.frames if f.type == "session/queue" and f.items]
    # every frame: "first" queued for an instant, "queued", then each edit
    assert len(received) == edits + 2 and not fast.ended

    async def drain() -> list[Any]:
        return [frame async for _, frame in slow]

    leftover = await asyncio.wait_for(drain(), 30)
    assert leftover[-1].type == "stream/error"
    assert leftover[-1].error.code == "internal" and "behind" in leftover[-1].error.message
    assert len(leftover) < edits + 5  # it was cut off, not fed the whole flood
    assert slow.closed

    # the fast one still gets live frames, and the slow client can reconnect and rebuild
    again = await host.mux(host.client("tiny"))
    _, subscribed = await again.next(ftype("session/subscribed", sid))
    assert subscribed.last_seq >= 0
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    for stream in (fast, again):
        _, end = await stream.next(event("turn/end", sid))
        assert end.event.data["reason"] == {"kind": "aborted", "by": "user"}
