"""Answering approvals and questions through `POST /api/respond` (docs/architecture.md,
"Approvals and
questions"): first answer wins, `*/resolved` converges every client, bad answers keep it pending."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from contract.methods import SESSION_CANCEL
from contract.rpc import ReceiptAccepted, ReceiptRefused
from tests.api.conftest import Host
from tests.api.support import Frames, event, events_of, ftype, ok, prompt, raw
from tests.support.scripted_llm import Reply, ScriptedLlmServer

NOT_PENDING = ReceiptRefused(reason="not-pending")
BAD = ReceiptRefused(reason="bad-response")


def bash(call_id: str, command: str) -> Reply:
    return Reply(tool_calls=[(call_id, "bash", json.dumps({"command": command}))])


def answer(value: Any) -> dict[str, Any]:
    return {"ok": True, "value": value}


async def test_two_clients_race_one_approval(host: Host, llm: ScriptedLlmServer) -> None:
    first, second = host.client(), host.client()
    mux_a, mux_b = await host.mux(first), await host.mux(second)
    sid = await host.create()
    rounds = [
        ("allowed-once", "rejected"),
        ("rejected", "allowed-always"),
        ("allowed-always", "allowed-once"),
    ]
    for n, (outcome_a, outcome_b) in enumerate(rounds):
        llm.enqueue(bash(f"c{n}", f"echo round-{n}"), Reply(text=f"round {n} done"))
        await prompt(first, sid, f"round {n}")
        rpc_id, frame = await mux_a.next(ftype("approval/requested", sid))
        assert (await mux_b.next(ftype("approval/requested", sid)))[0] == rpc_id  # the same request
        base = {"sessionId": sid, "approvalId": frame.approval_id}
        receipts = await asyncio.gather(
            first.respond(rpc_id, answer({**base, "outcome": outcome_a})),
            second.respond(rpc_id, answer({**base, "outcome": outcome_b})),
        )
        assert sorted(r.accepted for r in receipts) == [False, True], receipts
        loser = next(r for r in receipts if not r.accepted)
        assert loser == NOT_PENDING
        winner = outcome_a if receipts[0].accepted else outcome_b
        for mux in (mux_a, mux_b):
            _, resolved = await mux.next(ftype("approval/resolved", sid))
            assert (resolved.approval_id, resolved.outcome) == (frame.approval_id, winner)
            _, end = await mux.next(event("turn/end", sid))
            assert end.event.data["reason"] == {"kind": "completed"}
        turn = events_of(mux_a.frames, sid)
        decided = [e for e in turn if e.type == "approval/decided" and e.data["id"] == frame.approval_id]
        assert [d.data["outcome"] for d in decided] == [winner]
        result = next(e for e in reversed(turn) if e.type == "tool/result")
        if winner == "rejected":
            assert result.data["error"] == {"name": "bash", "code": "REJECTED"}
        else:
            assert f"round-{n}" in result.data["message"]["content"][0]["content"]
        late = await second.respond(rpc_id, answer({**base, "outcome": "allowed-once"}))
        assert late == NOT_PENDING
        if winner == "allowed-always":
            break  # bash is remembered for the session from now on
    assert n >= 1


async def test_bad_approval_answers_keep_the_request_pending(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(bash("c1", "echo finally"), Reply(text="done"))
    client = host.client()
    mux = await host.mux(client)
    sid, other = await host.create(), await host.create()
    await prompt(client, sid, "go")
    rpc_id, frame = await mux.next(ftype("approval/requested", sid))
    good = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-once"}
    bad_values: list[Any] = [
        {**good, "sessionId": other},
        {**good, "approvalId": "ap-someone-else"},
        {**good, "outcome": "cancelled"},
        {**good, "outcome": "maybe"},
        {**good, "extra": 1},
        {"sessionId": sid, "approvalId": frame.approval_id},
        {"sessionId": sid, "answer": {"answers": []}},
        "allowed-once",
        None,
    ]
    for value in bad_values:
        assert await client.respond(rpc_id, answer(value)) == BAD, value
    not_cancelled = {"ok": False, "error": {"code": "internal", "message": "nope", "details": {}}}
    assert await client.respond(rpc_id, not_cancelled) == BAD
    assert await client.respond("rpc-unknown", answer(good)) == NOT_PENDING
    # a body that is not a client-response at all
    envelope = {"type": "client-request", "rpcId": rpc_id, "method": "session.list", "payload": {}}
    reply = await raw(
        client, "POST", "/api/respond", {"content-type": "application/json"}, json.dumps(envelope).encode()
    )
    assert reply.status == 200 and json.loads(reply.body) == {"accepted": False, "reason": "bad-response"}
    assert not [f for f in mux.frames if f.type == "approval/resolved"]
    replay = await host.mux(host.client())  # still pending: a fresh stream replays it
    assert await replay.next(ftype("approval/requested", sid)) == (rpc_id, frame)
    assert await client.respond(rpc_id, answer(good)) == ReceiptAccepted()
    for stream in (mux, replay):
        _, resolved = await stream.next(ftype("approval/resolved", sid))
        assert resolved.outcome == "allowed-once"
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"] == {"kind": "completed"}


async def test_an_approval_answered_with_cancelled_is_resolved_cancelled(
    host: Host, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(bash("c1", "echo never"), Reply(text="skipped it"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await prompt(client, sid, "go")
    rpc_id, asked = await mux.next(ftype("approval/requested", sid))
    dismissed = {"ok": False, "error": {"code": "cancelled", "message": "dismissed", "details": {}}}
    assert await client.respond(rpc_id, dismissed) == ReceiptAccepted()
    _, resolved = await mux.next(ftype("approval/resolved", sid))
    assert (resolved.approval_id, resolved.outcome) == (asked.approval_id, "cancelled")
    await mux.next(event("turn/end", sid))
    result = next(e for e in events_of(mux.frames, sid) if e.type == "tool/result")
    assert "error" in result.data and "never" not in result.data["message"]["content"][0]["content"]


QUESTIONS = {
    "questions": [
        {
            "id": "size",
            "question": "Which size?",
            "header": "Size",
            "options": [{"label": "small"}, {"label": "large", "description": "the big one"}],
        },
        {
            "id": "extras",
            "question": "Which extras?",
            "options": [{"label": "cheese"}, {"label": "olives"}, {"label": "basil"}],
            "multiSelect": True,
        },
        {"id": "note", "question": "Anything else?"},
    ]
}


async def test_question_with_options_and_custom_text(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(tool_calls=[("q1", "ask_user", json.dumps(QUESTIONS))]), Reply(text="order placed"))
    first, second = host.client(), host.client()
    mux, other_mux = await host.mux(first), await host.mux(second)
    sid, other = await host.create(), await host.create()
    await prompt(first, sid, "order a pizza")
    rpc_id, frame = await mux.next(ftype("question/requested", sid))
    assert [q.id for q in frame.questions] == ["size", "extras", "note"]
    assert (
        frame.questions[1].multi_select is True and frame.questions[0].options[1].description == "the big one"
    )
    good = [
        {"id": "size", "selected": ["large"]},
        {"id": "extras", "selected": ["cheese", "basil"], "custom": "extra garlic"},
        {"id": "note", "selected": [], "custom": "ring twice"},
    ]

    def value(answers: list[dict[str, Any]], session: str = sid) -> dict[str, Any]:
        return {"sessionId": session, "answer": {"answers": answers}}

    invalid = [
        value(good[:2]),  # one answer missing
        value([*good, {"id": "size", "selected": ["small"]}]),  # one too many
        value([{**good[0], "id": "colour"}, *good[1:]]),  # unknown id
        value([good[0], good[0], good[2]]),  # id repeated
        value([{"id": "size", "selected": ["medium"]}, *good[1:]]),  # unknown label
        value([{"id": "size", "selected": ["small", "large"]}, *good[1:]]),  # single-select, two picks
        value([{"id": "size", "selected": ["small"], "custom": "or else"}, *good[1:]]),  # pick and custom
        value([{"id": "size", "selected": []}, *good[1:]]),  # nothing for a single-select
        value([good[0], {"id": "extras", "selected": ["olives", "olives"]}, good[2]]),  # duplicate labels
        value([good[0], {"id": "extras", "selected": []}, good[2]]),  # multi-select, nothing
        value([*good[:2], {"id": "note", "selected": [], "custom": "   "}]),  # blank custom text
        value(good, other),  # another session
        {"sessionId": sid, "answer": {"answers": good}, "extra": True},
        {"sessionId": sid, "approvalId": "x", "outcome": "allowed-once"},
    ]
    for bad in invalid:
        assert await second.respond(rpc_id, answer(bad)) == BAD, bad
    assert not [f for f in mux.frames if f.type == "question/resolved"]
    receipts = await asyncio.gather(
        first.respond(rpc_id, answer(value(good))), second.respond(rpc_id, answer(value(good)))
    )
    assert sorted(r.accepted for r in receipts) == [False, True]
    for stream in (mux, other_mux):
        _, resolved = await stream.next(ftype("question/resolved", sid))
        assert (resolved.question_rpc_id, resolved.outcome) == (rpc_id, "answered")
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"] == {"kind": "completed"}
    result = next(e for e in events_of(mux.frames, sid) if e.type == "tool/result")
    content = result.data["message"]["content"][0]["content"]
    assert "error" not in result.data
    for words in ("large", "cheese", "basil", "extra garlic", "ring twice"):
        assert words in content, (words, content)
    assert "olives" not in content and "small" not in content
    tool_message = next(m for m in llm.requests[-1]["messages"] if m["role"] == "tool")
    assert "ring twice" in tool_message["content"]


async def test_cancel_resolves_pending_requests_as_cancelled(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(bash("c1", "echo never"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await prompt(client, sid, "go")
    rpc_id, frame = await mux.next(ftype("approval/requested", sid))
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    _, resolved = await mux.next(ftype("approval/resolved", sid))
    assert resolved.outcome == "cancelled"
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"] == {"kind": "aborted", "by": "user"}
    value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-once"}
    assert await client.respond(rpc_id, answer(value)) == NOT_PENDING
    fresh = await host.mux(host.client())
    await fresh.next(ftype("session/queue", sid))
    assert [f.type for f in fresh.frames] == ["session/subscribed", "session/queue"]  # nothing to replay

    llm.enqueue(Reply(tool_calls=[("q1", "ask_user", json.dumps(QUESTIONS))]))
    await prompt(client, sid, "ask")
    question_rpc, _ = await mux.next(ftype("question/requested", sid))
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    _, cancelled = await mux.next(ftype("question/resolved", sid))
    assert (cancelled.question_rpc_id, cancelled.outcome) == (question_rpc, "cancelled")
    _, end = await mux.next(event("turn/end", sid))
    assert end.event.data["reason"] == {"kind": "aborted", "by": "user"}
    assert (
        await client.respond(question_rpc, answer({"sessionId": sid, "answer": {"answers": []}}))
        == NOT_PENDING
    )


async def test_frames_answerable_rpc_ids_are_stable_and_pushes_fresh(
    host: Host, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(bash("c1", "true"), Reply(text="ok"))
    client = host.client()
    mux: Frames = await host.mux(client)
    sid = await host.create()
    await prompt(client, sid, "go")
    rpc_id, frame = await mux.next(ftype("approval/requested", sid))
    again = [await host.mux(host.client()) for _ in range(2)]
    for stream in again:
        assert await stream.next(ftype("approval/requested", sid)) == (rpc_id, frame)
    subscribed = [(await s.seen(ftype("session/subscribed", sid)))[0] for s in again]
    assert len(set(subscribed)) == 2  # pushes get a fresh rpcId per emission
    await client.respond(
        rpc_id, answer({"sessionId": sid, "approvalId": frame.approval_id, "outcome": "rejected"})
    )
    await mux.next(event("turn/end", sid))
    ids = [r for r, _ in mux.items]
    assert len(set(ids)) == len(ids)
