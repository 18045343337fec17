"""The agent loop against the scripted OpenAI-compatible server and the real adapter."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

from contract.frames import HostSessionStatus, SessionQueue
from contract.sessions import TextInput
from host.engine.store import DB_FILE
from tests.engine.conftest import events_of, frames_until, is_event
from tests.support.engine import agent_of, queued, wait_quiet
from tests.support.scripted_llm import Reply

Factory = Any


def text(t: str) -> list[Any]:
    return [TextInput(text=t)]


async def started(engine: Any, prompt: str = "hello there", mode: str = "queue") -> tuple[str, Any]:
    sid = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(sid, mode, text(prompt), "rpc-1")
    return sid, agent_of(engine, sid)


async def test_one_turn_vocabulary_flush_and_auto_title(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    scripted_llm.enqueue(
        Reply(
            text="Hi! How can I help?",
            reasoning="greet",
            usage={"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14},
        )
    )
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid, _agent = await started(engine, "  Please   greet me warmly today  ")
    frames = await frames_until(mux, lambda f: getattr(f, "key", "") == "title")
    types = [e.type for e in events_of(frames)]
    # the prompt is queued (a logged splice); the first turn pins the permissions, then claims it
    assert types[:4] == ["agent/inbox/spliced", "permission/preset", "sandbox/mode", "approval/policy"]
    assert [e.data for e in events_of(frames)[1:4]] == [
        {"preset": "workspace-write"},
        {"mode": "workspace-write", "mechanism": "none", "network": False},  # Auto, no sandbox: Ask
        {"policy": "ask"},
    ]
    types = types[4:]
    assert types[:5] == ["agent/inbox/spliced", "turn/start", "user/message", "step/start", "request/header"]
    context = next(f for f in frames if getattr(f, "key", "") == "context")
    assert context.value == {"tokens": 14, "window": 32_768}
    assert types[-4:] == ["assistant/message", "step/end", "turn/end", "session/title"]
    assert set(types[5:-4]) == {"assistant/chunk"}
    events = events_of(frames)
    assert [e.seq for e in events] == list(range(len(events)))
    message = next(e for e in events if e.type == "assistant/message")
    chunk_seqs = [e.seq for e in events if e.type == "assistant/chunk"]
    assert message.source_event_seqs == chunk_seqs
    assert [b["type"] for b in message.data["message"]["content"]] == ["reasoning", "text"]
    assert message.data["usage"] == {"inputTokens": 9, "outputTokens": 5}
    user = next(e for e in events if e.type == "user/message").data
    assert user["source"] == {"kind": "user", "rpcId": "rpc-1"} and user["content"][0]["text"].startswith(
        "  Please"
    )
    assert events[-2].data["reason"] == {"kind": "completed"}
    assert events[-1].data == {"title": "Please greet me warmly today", "source": {"kind": "auto"}}
    assert frames[-1].key == "title" and frames[-1].value == "Please greet me warmly today"
    assert frames[0].type == "session/subscribed" and frames[0].last_seq == -1
    # the turn end was checkpointed: another connection sees the whole turn on disk
    conn = sqlite3.connect(tmp_path / "data" / DB_FILE)
    on_disk = conn.execute("SELECT COUNT(*) FROM events WHERE session_id = ?", (sid,)).fetchone()[0]
    conn.close()
    assert on_disk >= len(events) - 1
    body = scripted_llm.requests[0]
    assert body["model"] == "scripted-small" and body["messages"][0]["role"] == "system"
    assert "tools" not in body  # no tools configured → none sent
    summary = (await engine.sessions.list_sessions())[0]
    assert summary.title == "Please greet me warmly today" and not summary.blank and not summary.running
    assert summary.updated_at == events[-2].time


async def test_queue_is_fifo_back_to_back_with_one_running_edge(
    engine_factory: Factory, scripted_llm: Any
) -> None:
    scripted_llm.enqueue(
        Reply(text="first answer is slow", delay=0.05, chunk_size=2), Reply(text="two"), Reply(text="three")
    )
    engine = await engine_factory(tools={})
    host = engine.host.subscribe_host()
    mux = engine.host.subscribe_mux()
    sid, agent = await started(engine, "one")
    await frames_until(mux, is_event("assistant/chunk"))
    second = await engine.agents.prompt(sid, "queue", text("two"), "rpc-2")
    third = await engine.agents.prompt(sid, "queue", text("three"), "rpc-3")
    assert [(i.id, i.placement) for i in queued(engine, sid)] == [(second, "queued"), (third, "queued")]
    frames = await frames_until(mux, is_event("turn/end", turn=2))
    await wait_quiet(agent)
    starts = [e.data for e in events_of(frames) if e.type == "turn/start"]
    assert starts == [{"turn": 1, "trigger": "queue"}, {"turn": 2, "trigger": "queue"}]
    users = [e.data["content"][0]["text"] for e in events_of(frames) if e.type == "user/message"]
    assert users == ["two", "three"]
    snapshots = [[i.id for i in f.items] for f in frames if isinstance(f, SessionQueue)]
    assert snapshots[-1] == [] and [second, third] in snapshots
    statuses = []
    while (item := host.get_nowait()) is not None:
        if isinstance(item[1], HostSessionStatus):
            statuses.append(item[1].running)
    assert statuses == [True, False]
    # three requests, each seeing the earlier conversation
    assert len(scripted_llm.requests) == 3
    assert [m["role"] for m in scripted_llm.requests[2]["messages"]][1:] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]


async def test_steer_is_delivered_at_the_next_step_checkpoint(
    engine_factory: Factory, scripted_llm: Any
) -> None:
    slow_call = Reply(
        text="let me check", tool_calls=[("c1", "no_such_tool", "{}")], delay=0.05, chunk_size=2
    )
    scripted_llm.enqueue(slow_call, Reply(text="done, steered"))
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid, agent = await started(engine, "do work")
    await frames_until(mux, is_event("assistant/chunk"))
    steered = await engine.agents.prompt(sid, "steer", text("also check tests"), "rpc-s")
    assert [(i.id, i.placement) for i in queued(engine, sid)] == [(steered, "steering")]
    frames = await frames_until(mux, is_event("turn/end"))
    types = [e.type for e in events_of(frames)]
    result = next(e for e in events_of(frames) if e.type == "tool/result")
    assert result.data["error"] == {"name": "no_such_tool", "code": "UNKNOWN_TOOL"}
    step1 = types.index("step/start", types.index("step/end"))
    claim = events_of(frames)[step1 + 1]  # the claim and the message it delivers: one write
    assert claim.type == "agent/inbox/spliced" and claim.data == {
        "target": "next-step",
        "start": 0,
        "removedCount": 1,
        "inserted": [],
    }
    assert types[step1 + 2] == "steering/message"
    steering = events_of(frames)[step1 + 2].data
    assert steering["content"][0]["text"] == "also check tests" and steering["source"]["kind"] == "user"
    second = scripted_llm.requests[1]["messages"]
    assert second[-1] == {"role": "user", "content": "also check tests"}
    assert second[-2]["role"] == "tool"
    # steer on an idle agent starts an ordinary turn
    await wait_quiet(agent)
    scripted_llm.enqueue(Reply(text="ok"))
    await engine.agents.prompt(sid, "steer", text("idle steer"), "rpc-t")
    frames = await frames_until(mux, is_event("turn/end"))
    start = next(e for e in events_of(frames) if e.type == "turn/start")
    assert start.data == {"turn": 1, "trigger": "steer"}


async def test_cancel_mid_stream_aborts_only_the_turn_and_the_queue_runs_next(
    engine_factory: Factory, scripted_llm: Any
) -> None:
    scripted_llm.enqueue(Reply(text="a long answer " * 50, hang_after=3), Reply(text="later, answered"))
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid, agent = await started(engine)

    def text_shown(frame: Any) -> bool:  # a block-start chunk comes first and carries no text
        return is_event("assistant/chunk")(frame) and frame.event.data["chunk"]["type"] == "text-delta"

    await frames_until(mux, text_shown)
    queued_id = await engine.agents.prompt(sid, "queue", text("later"), "rpc-2")
    assert await engine.agents.cancel(sid) is True
    frames = await frames_until(mux, is_event("turn/end", turn=0))
    events = events_of(frames)
    assert events[-1].data == {"turn": 0, "reason": {"kind": "aborted", "by": "user"}}
    interrupted = next(e for e in events if e.type == "assistant/message")
    assert interrupted.data["interrupted"] is True
    assert interrupted.data["message"]["content"][0]["text"].startswith("a lo")
    assert events[-2].type == "step/end"
    assert await asyncio.to_thread(scripted_llm.wait_for_disconnects, 1, 5.0)
    # the queued item was kept and starts next
    frames = await frames_until(mux, is_event("turn/end", turn=1))
    events = events_of(frames)
    start = next(e for e in events if e.type == "turn/start")
    user = next(e for e in events if e.type == "user/message")
    assert start.data == {"turn": 1, "trigger": "queue"} and user.data["id"] == queued_id
    assert events[-1].data["reason"] == {"kind": "completed"}
    await wait_quiet(agent)
    assert len(scripted_llm.requests) == 2
    assert await engine.agents.cancel(sid) is False  # idle: no-op
    page, _, _ = await engine.sessions.history(sid)
    assert page[-1].type in ("turn/end", "session/title")


async def test_cancel_with_clear_queue_drops_queued_and_steering_input(
    engine_factory: Factory, scripted_llm: Any
) -> None:
    scripted_llm.enqueue(Reply(text="a long answer " * 50, hang_after=3))
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid, agent = await started(engine)
    await frames_until(mux, is_event("assistant/chunk"))
    await engine.agents.prompt(sid, "queue", text("later"), "rpc-2")
    await engine.agents.prompt(sid, "steer", text("steer me"), "rpc-3")
    await engine.agents.inject(sid, "a job ended", "jobs")
    assert [i.placement for i in queued(engine, sid)] == ["queued", "steering", "context"]
    assert await engine.agents.cancel(sid, clear_queue=True) is True
    frames = await frames_until(mux, is_event("turn/end"))
    await wait_quiet(agent)
    assert [i.placement for i in queued(engine, sid)] == ["context"]  # the host's context stays
    cleared = [e for e in events_of(frames) if e.type == "agent/inbox/spliced" and e.data.get("outcome")]
    assert {(e.data["target"], e.data["outcome"]) for e in cleared} == {
        ("next-turn", "canceled"),
        ("next-step", "canceled"),
    }
    assert len(scripted_llm.requests) == 1  # nothing else ran


async def test_retry_after_429_is_recorded(engine_factory: Factory, scripted_llm: Any) -> None:
    scripted_llm.enqueue(
        Reply(status=429, retry_after=0.01, error_message="slow down"), Reply(text="finally")
    )
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    await started(engine)
    frames = await frames_until(mux, is_event("turn/end"))
    retry = next(e for e in events_of(frames) if e.type == "request/retry")
    assert retry.data["attempt"] == 1 and retry.data["delayMs"] == 10 and "429" in retry.data["reason"]
    assert events_of(frames)[-1].data["reason"] == {"kind": "completed"}


async def test_provider_error_ends_the_turn_with_error(engine_factory: Factory, scripted_llm: Any) -> None:
    scripted_llm.enqueue(Reply(status=400, error_message="bad model"))
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    _sid, agent = await started(engine)
    frames = await frames_until(mux, is_event("turn/end"))
    reason = events_of(frames)[-1].data["reason"]
    assert reason["kind"] == "error" and reason["error"]["status"] == 400
    assert events_of(frames)[-2].type == "step/end"
    await wait_quiet(agent)
    assert (await engine.sessions.list_sessions())[0].title is None  # no auto title after a failed turn


async def test_step_cap_ends_the_turn(engine_factory: Factory, scripted_llm: Any) -> None:
    call = Reply(tool_calls=[("c", "missing", "{}")])
    scripted_llm.enqueue(call, call, call)
    engine = await engine_factory(tools={}, step_cap=2)
    mux = engine.host.subscribe_mux()
    await started(engine)
    frames = await frames_until(mux, is_event("turn/end"))
    assert events_of(frames)[-1].data["reason"] == {
        "kind": "error",
        "error": {"message": "step limit (2) reached"},
    }
    assert len(scripted_llm.requests) == 2


async def test_injected_context_waits_for_the_next_step_and_never_wakes_the_agent(
    engine_factory: Factory, scripted_llm: Any
) -> None:
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    context_id = await engine.agents.inject(sid, "file a.py changed", "watcher", {"path": "a.py"})
    frames = await frames_until(mux, lambda f: isinstance(f, SessionQueue))
    assert [(i.id, i.placement) for i in frames[-1].items] == [(context_id, "context")]
    await asyncio.sleep(0.2)
    assert scripted_llm.requests == [] and not agent_of(engine, sid).running  # no turn of its own
    scripted_llm.enqueue(Reply(text="noted"))
    await engine.agents.prompt(sid, "queue", text("what changed?"), "r")
    frames = await frames_until(mux, is_event("turn/end"))
    events = events_of(frames)
    claimed = next(e for e in events if e.type == "user/message" and e.data["id"] == context_id)
    assert claimed.data["source"] == {"kind": "plugin", "plugin": "watcher", "meta": {"path": "a.py"}}
    step = next(e for e in events if e.type == "step/start")
    assert step.seq < claimed.seq  # claimed at the first step, after the prompt's own message
    sent = scripted_llm.requests[0]["messages"]
    assert sent[-1] == {"role": "user", "content": "file a.py changed"}
    assert queued(engine, sid) == []


async def test_concurrent_resumes_share_one_load(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    first = await engine_factory(tools={})
    sid, agent = await started(first)
    await wait_quiet(agent)
    await first.close()
    second = await engine_factory(tools={})
    agents = await asyncio.gather(*(second.agents.attach(sid) for _ in range(5)))
    assert second.parts.pool.resumes == 1 and all(a is agents[0] for a in agents)
    assert agents[0].next_turn == 1 and len(agents[0].history) == 2


async def test_close_aborts_running_turns_as_disposed(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    scripted_llm.enqueue(Reply(text="never finishing " * 20, hang_after=2))
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid, _ = await started(engine)
    await frames_until(mux, is_event("assistant/chunk"))
    await engine.close()
    conn = sqlite3.connect(tmp_path / "data" / DB_FILE)
    last = conn.execute(
        "SELECT json FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1", (sid,)
    ).fetchone()
    conn.close()
    assert json.loads(last[0])["data"]["reason"] == {"kind": "aborted", "by": "disposed"}


async def test_user_title_pins_and_no_auto_title(engine_factory: Factory, scripted_llm: Any) -> None:
    engine = await engine_factory(tools={})
    sid = await engine.sessions.create_session("/tmp")
    title, seq = await engine.sessions.rename(sid, "  My\n\tproject  ")
    assert (title, seq) == ("My project", 0)
    mux = engine.host.subscribe_mux()
    await engine.agents.prompt(sid, "queue", text("hello"), "r")
    frames = await frames_until(mux, is_event("turn/end"))
    await wait_quiet(agent_of(engine, sid))
    titles = [e for e in events_of(frames) if e.type == "session/title"]
    assert all(e.data["source"]["kind"] == "user" for e in titles)  # no auto title over a user one
    assert (await engine.sessions.list_sessions())[0].title == "My project"
