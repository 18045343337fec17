"""Tool calls through the agent: approvals, questions, bad arguments, cancel mid-tool (real tools)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from contract.errors import rpc_error
from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused, RpcErr, RpcOk
from contract.sessions import TextInput
from tests.engine.conftest import events_of, frames_until, is_event
from tests.support.scripted_llm import Reply

Factory = Any


def is_frame(ftype: str) -> Any:
    return lambda f: getattr(f, "type", None) == ftype


def process_gone(pid: int) -> bool:
    """True when the pid no longer runs (absent, or a zombie awaiting its parent)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().split()[2] == "Z"
    except FileNotFoundError:
        return True


def answer(rpc_id: str, value: Any) -> ClientResponse:
    return ClientResponse(rpc_id=rpc_id, result=RpcOk[Any](value=value))


async def start(engine: Any, cwd: Path, prompt: str = "go") -> tuple[str, Any]:
    sid = await engine.sessions.create_session(str(cwd))
    mux = engine.host.subscribe_mux()
    await engine.agents.prompt(sid, "queue", [TextInput(text=prompt)], "rpc-1")
    return sid, mux


async def requested(mux: Any, ftype: str) -> tuple[str, Any]:
    """The (rpcId, frame) of the next answerable frame of `ftype`."""
    while True:
        item = await asyncio.wait_for(mux.get(), 15)
        assert item is not None
        if item[1].type == ftype:
            return item


async def test_approval_allowed_once_then_asked_again(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    bash = Reply(tool_calls=[("c1", "bash", '{"command": "echo hi-there"}')])
    scripted_llm.enqueue(bash, Reply(text="ran it"), bash, Reply(text="again"))
    engine = await engine_factory()
    sid, mux = await start(engine, tmp_path)
    rpc_id, frame = await requested(mux, "approval/requested")
    assert (
        frame.tool_name == "bash"
        and frame.call_id == "c1"
        and frame.arguments == {"command": "echo hi-there"}
    )
    value = {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-once"}
    assert engine.host.respond(answer(rpc_id, value)) == ReceiptAccepted()
    assert engine.host.respond(answer(rpc_id, value)) == ReceiptRefused(reason="not-pending")
    frames = await frames_until(mux, is_event("turn/end"))
    events = events_of(frames)
    decided = next(e for e in events if e.type == "approval/decided")
    assert decided.data == {"id": frame.approval_id, "outcome": "allowed-once"}
    result = next(e for e in events if e.type == "tool/result")
    assert "hi-there" in result.data["message"]["content"][0]["content"] and "error" not in result.data
    assert events[-1].data["reason"] == {"kind": "completed"}
    await engine.agents.prompt(sid, "queue", [TextInput(text="again")], "rpc-2")
    rpc2, frame2 = await requested(mux, "approval/requested")  # allowed-once is not remembered
    assert rpc2 != rpc_id
    engine.host.respond(
        answer(rpc2, {"sessionId": sid, "approvalId": frame2.approval_id, "outcome": "rejected"})
    )
    frames = await frames_until(mux, is_event("turn/end"))
    result = next(e for e in events_of(frames) if e.type == "tool/result")
    assert result.data["error"] == {"name": "bash", "code": "REJECTED"}
    assert events_of(frames)[-1].data["reason"] == {"kind": "completed"}  # the turn goes on
    # the answer also reached the model as context (the inject lane), claimed at the next step
    notice = next(e for e in events_of(frames) if e.type == "user/message" and e.seq > result.seq)
    assert notice.data["source"] == {"kind": "plugin", "plugin": "approvals"}
    assert notice.data["content"][0]["text"].startswith("The user rejected your bash call")
    sent = scripted_llm.requests[-1]["messages"]
    assert sent[-1]["role"] == "user" and sent[-1]["content"].startswith("The user rejected your bash call")


async def test_allowed_always_is_remembered_for_the_session(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    write = Reply(tool_calls=[("w1", "write_file", '{"path": "a.txt", "content": "one"}')])
    write2 = Reply(tool_calls=[("w2", "write_file", '{"path": "b.txt", "content": "two"}')])
    scripted_llm.enqueue(write, write2, Reply(text="both written"))
    engine = await engine_factory()
    sid, mux = await start(engine, tmp_path)
    rpc_id, frame = await requested(mux, "approval/requested")
    engine.host.respond(
        answer(rpc_id, {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-always"})
    )
    frames = await frames_until(mux, is_event("turn/end"))
    assert (tmp_path / "a.txt").read_text() == "one" and (tmp_path / "b.txt").read_text() == "two"
    assert [e.type for e in events_of(frames)].count("approval/asked") == 0  # the second call did not ask
    users = [e for e in events_of(frames) if e.type == "user/message"]
    notices = [e for e in users if e.data["source"]["kind"] == "plugin"]
    assert [n.data["source"]["plugin"] for n in notices] == ["approvals"]
    assert notices[0].data["content"][0]["text"].startswith("The user allowed write_file: anywhere in ")


async def test_ask_user_validation_answer_and_cancel(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    args = {
        "questions": [
            {"id": "color", "question": "Which colour?", "options": [{"label": "red"}, {"label": "blue"}]}
        ]
    }
    ask = Reply(tool_calls=[("q1", "ask_user", json.dumps(args))])
    scripted_llm.enqueue(ask, Reply(text="blue it is"), ask, Reply(text="fine"))
    engine = await engine_factory()
    sid, mux = await start(engine, tmp_path)
    rpc_id, frame = await requested(mux, "question/requested")
    assert frame.questions[0].id == "color"
    bad = {"sessionId": sid, "answer": {"answers": [{"id": "color", "selected": ["green"]}]}}
    assert engine.host.respond(answer(rpc_id, bad)) == ReceiptRefused(reason="bad-response")
    good = {"sessionId": sid, "answer": {"answers": [{"id": "color", "selected": ["blue"]}]}}
    assert engine.host.respond(answer(rpc_id, good)) == ReceiptAccepted()
    frames = await frames_until(mux, is_event("turn/end"))
    result = next(e for e in events_of(frames) if e.type == "tool/result")
    assert "blue" in result.data["message"]["content"][0]["content"] and "error" not in result.data
    resolved = next(f for f in frames if f.type == "question/resolved")
    assert resolved.question_rpc_id == rpc_id and resolved.outcome == "answered"
    await engine.agents.prompt(sid, "queue", [TextInput(text="ask again")], "rpc-2")
    rpc2, _ = await requested(mux, "question/requested")
    cancel = ClientResponse(rpc_id=rpc2, result=RpcErr(error=rpc_error("cancelled", "dismissed")))
    assert engine.host.respond(cancel) == ReceiptAccepted()
    frames = await frames_until(mux, is_event("turn/end"))
    result = next(e for e in events_of(frames) if e.type == "tool/result")
    assert result.data["error"]["code"] == "CANCELLED"
    assert events_of(frames)[-1].data["reason"] == {"kind": "completed"}


async def test_first_answer_wins_between_racing_clients(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    scripted_llm.enqueue(Reply(tool_calls=[("c1", "bash", '{"command": "true"}')]), Reply(text="ok"))
    engine = await engine_factory()
    sid, mux = await start(engine, tmp_path)
    rpc_id, frame = await requested(mux, "approval/requested")
    replay = engine.host.subscribe_mux()  # a fresh stream replays the pending request with the same rpcId
    snapshot = [replay.get_nowait() for _ in range(3)]
    assert (rpc_id, frame) in snapshot
    outcomes = ["rejected", "allowed-once", "allowed-always"]
    receipts = [
        engine.host.respond(answer(rpc_id, {"sessionId": sid, "approvalId": frame.approval_id, "outcome": o}))
        for o in outcomes
    ]
    assert receipts == [
        ReceiptAccepted(),
        ReceiptRefused(reason="not-pending"),
        ReceiptRefused(reason="not-pending"),
    ]
    frames = await frames_until(mux, is_event("turn/end"))
    assert next(e for e in events_of(frames) if e.type == "approval/decided").data["outcome"] == "rejected"


async def test_bad_arguments_become_error_results(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    calls = [("b1", "bash", '{"command": 5}'), ("b2", "read_file", '{"path": '), ("b3", "read_file", "[1]")]
    scripted_llm.enqueue(Reply(tool_calls=calls), Reply(text="sorry"))
    engine = await engine_factory()
    _, mux = await start(engine, tmp_path)
    frames = await frames_until(mux, is_event("turn/end"))
    results = [e.data["error"] for e in events_of(frames) if e.type == "tool/result"]
    assert [r["code"] for r in results] == ["BAD_ARGUMENTS"] * 3
    assert events_of(frames)[-1].data["reason"] == {"kind": "completed"}
    sent = scripted_llm.requests[1]["messages"]
    assert [m["role"] for m in sent[-3:]] == ["tool", "tool", "tool"]
    assert {t["function"]["name"] for t in scripted_llm.requests[0]["tools"]} >= {
        "bash",
        "read_file",
        "ask_user",
    }


async def test_todo_write_is_logged(engine_factory: Factory, scripted_llm: Any, tmp_path: Path) -> None:
    todos = {"todos": [{"content": "write tests", "status": "in_progress"}]}
    scripted_llm.enqueue(Reply(tool_calls=[("t1", "todo_write", json.dumps(todos))]), Reply(text="planned"))
    engine = await engine_factory()
    _, mux = await start(engine, tmp_path)
    frames = await frames_until(mux, is_event("turn/end"))
    todo = next(e for e in events_of(frames) if e.type == "todo/write")
    assert todo.data == todos


async def test_cancel_mid_tool_kills_the_process_group(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    command = "echo $$ > leader.pid; sleep 60 & echo $! > child.pid; wait"
    scripted_llm.enqueue(Reply(tool_calls=[("c1", "bash", json.dumps({"command": command}))]))
    engine = await engine_factory()
    sid, mux = await start(engine, tmp_path)
    rpc_id, frame = await requested(mux, "approval/requested")
    engine.host.respond(
        answer(rpc_id, {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-once"})
    )
    for _ in range(200):
        if (tmp_path / "child.pid").exists() and (tmp_path / "child.pid").read_text().strip():
            break
        await asyncio.sleep(0.05)
    pids = [int((tmp_path / name).read_text()) for name in ("leader.pid", "child.pid")]
    began = time.monotonic()
    assert await engine.agents.cancel(sid)
    frames = await frames_until(mux, is_event("turn/end"))
    assert time.monotonic() - began < 10  # not the 60 s the command would take
    events = events_of(frames)
    assert events[-1].data["reason"] == {"kind": "aborted", "by": "user"}
    result = next(e for e in events if e.type == "tool/result")
    assert result.data["error"] == {"name": "bash", "code": "CANCELLED"}
    assert events[-2].type == "step/end"
    for pid in pids:
        assert process_gone(pid)


async def test_cancel_while_approval_pending(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    scripted_llm.enqueue(
        Reply(tool_calls=[("c1", "bash", '{"command": "true"}'), ("c2", "read_file", '{"path": "x"}')])
    )
    engine = await engine_factory()
    sid, mux = await start(engine, tmp_path)
    rpc_id, frame = await requested(mux, "approval/requested")
    await engine.agents.cancel(sid)
    frames = await frames_until(mux, is_event("turn/end"))
    resolved = next(f for f in frames if f.type == "approval/resolved")
    assert resolved.outcome == "cancelled" and resolved.approval_id == frame.approval_id
    events = events_of(frames)
    assert next(e for e in events if e.type == "approval/decided").data["outcome"] == "cancelled"
    codes = [e.data["error"]["code"] for e in events if e.type == "tool/result"]
    assert codes == ["CANCELLED", "TOOL_NOT_STARTED"]
    assert engine.host.respond(
        answer(rpc_id, {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-once"})
    ) == ReceiptRefused(reason="not-pending")


async def test_allowed_always_survives_a_restart(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    scripted_llm.enqueue(
        Reply(tool_calls=[("w1", "write_file", '{"path": "a.txt", "content": "one"}')]), Reply(text="done")
    )
    engine = await engine_factory(data_dir)
    sid, mux = await start(engine, tmp_path)
    rpc_id, frame = await requested(mux, "approval/requested")
    engine.host.respond(
        answer(rpc_id, {"sessionId": sid, "approvalId": frame.approval_id, "outcome": "allowed-always"})
    )
    await frames_until(mux, is_event("turn/end"))
    await engine.close()

    scripted_llm.enqueue(
        Reply(tool_calls=[("w2", "write_file", '{"path": "b.txt", "content": "two"}')]), Reply(text="again")
    )
    reopened = await engine_factory(data_dir)
    mux = reopened.host.subscribe_mux()
    await reopened.agents.prompt(sid, "queue", [TextInput(text="write b")], "rpc-2")
    frames = await frames_until(mux, is_event("turn/end"))
    assert (tmp_path / "b.txt").read_text() == "two"
    assert [e.type for e in events_of(frames)].count("approval/asked") == 0
