"""The pending table (first answer wins, validation, cancellation, replay) and the bus."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from contract.approvals import ApprovalRequested, ApprovalResolved
from contract.errors import rpc_error
from contract.frames import HostSessionStatus, StreamError
from contract.questions import AnswerSet, Question, QuestionOption, QuestionRequested, QuestionResolved
from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused, RpcErr, RpcOk
from host.engine.agent.pending import PendingTable, QuestionCancelled
from host.engine.sessions.bus import Bus
from tests.support.engine import pending_ids


def answer(rpc_id: str, value: Any) -> ClientResponse:
    return ClientResponse(rpc_id=rpc_id, result=RpcOk[Any](value=value))


def cancelled(rpc_id: str) -> ClientResponse:
    return ClientResponse(rpc_id=rpc_id, result=RpcErr(error=rpc_error("cancelled", "user closed it")))


def drain(sub: Any) -> list[tuple[str, Any]]:
    out = []
    while (item := sub.get_nowait()) is not None:
        out.append(item)
    return out


QUESTIONS = [
    Question(id="q1", question="Which?", options=[QuestionOption(label="A"), QuestionOption(label="B")]),
    Question(
        id="q2",
        question="Many?",
        options=[QuestionOption(label="X"), QuestionOption(label="Y")],
        multi_select=True,
    ),
]


async def test_approval_first_answer_wins_and_frames_converge() -> None:
    bus = Bus()
    mux = bus.subscribe("mux")
    table = PendingTable(bus)
    rpc_id, future = table.ask_approval("s1", "ap1", "bash", "c1", "why", {"command": "ls"})
    value = {"sessionId": "s1", "approvalId": "ap1", "outcome": "allowed-once"}
    assert table.respond(answer(rpc_id, value)) == ReceiptAccepted()
    assert table.respond(answer(rpc_id, {**value, "outcome": "rejected"})) == ReceiptRefused(
        reason="not-pending"
    )
    assert await future == "allowed-once"
    frames = drain(mux)
    assert frames[0][0] == rpc_id and isinstance(frames[0][1], ApprovalRequested)
    assert frames[0][1].arguments == {"command": "ls"}
    assert isinstance(frames[1][1], ApprovalResolved) and frames[1][1].outcome == "allowed-once"
    assert frames[1][0] != rpc_id  # a push gets a fresh rpcId
    assert pending_ids(table, "s1") == []


async def test_bad_approval_answers_keep_the_request_pending() -> None:
    table = PendingTable(Bus())
    rpc_id, future = table.ask_approval("s1", "ap1", "bash")
    bad_values: list[Any] = [
        {"sessionId": "other", "approvalId": "ap1", "outcome": "allowed-once"},
        {"sessionId": "s1", "approvalId": "ap2", "outcome": "allowed-once"},
        {"sessionId": "s1", "approvalId": "ap1", "outcome": "cancelled"},
        {"sessionId": "s1", "approvalId": "ap1", "outcome": "allowed-once", "extra": 1},
        "allowed-once",
    ]
    for value in bad_values:
        assert table.respond(answer(rpc_id, value)) == ReceiptRefused(reason="bad-response")
    err = ClientResponse(rpc_id=rpc_id, result=RpcErr(error=rpc_error("internal", "boom")))
    assert table.respond(err) == ReceiptRefused(reason="bad-response")
    assert rpc_id in pending_ids(table, "s1") and not future.done()
    assert table.respond(answer("unknown", {})) == ReceiptRefused(reason="not-pending")
    assert table.respond(cancelled(rpc_id)) == ReceiptAccepted()
    assert await future == "cancelled"


async def test_question_validation_answer_and_cancel() -> None:
    bus = Bus()
    mux = bus.subscribe("mux")
    table = PendingTable(bus)
    waiter = asyncio.create_task(table.question("s1", QUESTIONS))
    await asyncio.sleep(0)
    (rpc_id, frame), *_ = drain(mux)
    assert isinstance(frame, QuestionRequested)
    invalid = [
        {"answers": [{"id": "q1", "selected": ["A"]}]},  # count
        {"answers": [{"id": "q1", "selected": ["A", "B"]}, {"id": "q2", "selected": ["X"]}]},  # single
        {"answers": [{"id": "q1", "selected": ["Z"]}, {"id": "q2", "selected": ["X"]}]},  # label
        {"answers": [{"id": "q1", "selected": [], "custom": "  "}, {"id": "q2", "selected": ["X"]}]},
        {"answers": [{"id": "q1", "selected": ["A"]}, {"id": "q1", "selected": ["A"]}]},  # ids
    ]
    for body in invalid:
        response = answer(rpc_id, {"sessionId": "s1", "answer": body})
        assert table.respond(response) == ReceiptRefused(reason="bad-response")
    good = {"answers": [{"id": "q1", "selected": [], "custom": "C"}, {"id": "q2", "selected": ["X", "Y"]}]}
    assert table.respond(answer(rpc_id, {"sessionId": "s1", "answer": good})) == ReceiptAccepted()
    assert await waiter == AnswerSet.model_validate(good)
    resolved = drain(mux)[-1][1]
    assert isinstance(resolved, QuestionResolved) and resolved.outcome == "answered"
    assert resolved.question_rpc_id == rpc_id

    waiter = asyncio.create_task(table.question("s1", QUESTIONS))
    await asyncio.sleep(0)
    (rpc_id, _), *_ = drain(mux)
    assert table.respond(cancelled(rpc_id)) == ReceiptAccepted()
    with pytest.raises(QuestionCancelled):
        await waiter
    assert drain(mux)[-1][1].outcome == "cancelled"


async def test_cancelling_the_waiter_cancels_the_question() -> None:
    bus = Bus()
    mux = bus.subscribe("mux")
    table = PendingTable(bus)
    waiter = asyncio.create_task(table.question("s1", QUESTIONS))
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert pending_ids(table, "s1") == []
    assert [f.type for _, f in drain(mux)] == ["question/requested", "question/resolved"]


async def test_session_cancel_shutdown_and_replay() -> None:
    bus = Bus()
    table = PendingTable(bus)
    r1, f1 = table.ask_approval("s1", "a1", "bash")
    r2, f2 = table.ask_approval("s2", "a2", "write_file")
    r3, f3 = table.ask_question("s1", QUESTIONS)
    assert [rid for rid, _ in table.requests_for("s1")] == [r1, r3]
    late = bus.subscribe("mux", lambda: table.requests_for("s1"))
    assert [rid for rid, _ in drain(late)] == [r1, r3]  # same rpcIds on replay
    assert table.cancel_session("s1") == 2
    assert await f1 == "cancelled" and await f3 is None and not f2.done()
    assert table.cancel_all() == 1 and await f2 == "cancelled"
    assert table.respond(cancelled(r2)) == ReceiptRefused(reason="not-pending")


async def test_bus_overflow_closes_only_the_slow_subscriber() -> None:
    bus = Bus(limit=5)
    slow = bus.subscribe("host")
    fast = bus.subscribe("host")
    received: list[Any] = []
    for i in range(8):
        bus.publish("host", HostSessionStatus(session_id=f"s{i}", running=True))
        received.extend(drain(fast))
    assert len(received) == 8
    items = [item async for item in slow]  # ends: the slow one was closed
    assert len(items) == 1 and isinstance(items[0][1], StreamError)
    assert slow.overflowed and slow.closed and not fast.closed
    assert bus.subscribers("host") == 1
    with pytest.raises(ValueError):
        bus.publish("mux", ApprovalRequested(session_id="s", approval_id="a", tool_name="t"))


async def test_bus_snapshot_then_live_without_gap() -> None:
    bus = Bus()
    bus.publish("host", HostSessionStatus(session_id="before", running=True))
    sub = bus.subscribe("host", lambda: [("rid", HostSessionStatus(session_id="snap", running=False))])
    bus.publish("host", HostSessionStatus(session_id="after", running=True))
    assert [f.session_id for _, f in drain(sub)] == ["snap", "after"]
    sub.close()
    assert await sub.get() is None
