"""The veto seam (host/engine/agent/prompt_gates.py): prompt gates asked before a turn accepts its prompt."""

from __future__ import annotations

import asyncio
from typing import Any

from contract.events import SessionEvent
from contract.sessions import TextInput
from contract.vetoes import stderr_summary
from host.engine.agent.prompt_gates import PromptCheck, Veto
from host.engine.sessions import events
from host.engine.sessions.inbox import replay
from tests.support.engine import agent_of, wait_quiet
from tests.support.scripted_llm import Reply

Factory = Any


async def new_session(engine: Any, tmp_path: Any) -> str:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return await engine.sessions.create_session(cwd=str(work))


async def log_of(engine: Any, sid: str) -> list[SessionEvent]:
    await engine.parts.store.flush()
    return await engine.parts.store.events(sid, 0)


AUDIT = {"agent/inbox/spliced", "permission/preset", "sandbox/mode", "approval/policy"}


def types(log: list[SessionEvent]) -> list[str]:
    return [e.type for e in log if e.type not in AUDIT]


async def test_a_veto_logs_the_prompt_blocked_inside_a_turn_with_no_steps(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    seen: list[PromptCheck] = []

    async def ticket_policy(check: PromptCheck) -> Veto | None:
        seen.append(check)
        handler = "claude:UserPromptSubmit:1"
        check.record(events.hook_invoked(check.turn, "UserPromptSubmit", "claude", handler))
        text = check.message.content[0].text  # type: ignore[union-attr]
        decision = "block" if "rm -rf" in text else "pass"
        summary = stderr_summary("Destructive requests need a ticket number.\n")
        check.record(events.hook_result(check.turn, "UserPromptSubmit", handler, decision, 2, summary, 12.5))
        return Veto("Destructive requests need a ticket number.") if decision == "block" else None

    engine.parts.prompt_gates.add(ticket_policy)
    await engine.agents.prompt(sid, "queue", [TextInput(text="rm -rf the build dir")], "rpc-1")
    await wait_quiet(agent_of(engine, sid))
    log = await log_of(engine, sid)
    assert types(log) == ["turn/start", "hook/invoked", "hook/result", "prompt/blocked", "turn/end"]
    blocked = next(e for e in log if e.type == "prompt/blocked")
    assert blocked.data == {
        "content": [{"type": "text", "text": "rm -rf the build dir"}],
        "source": {"kind": "user", "rpcId": "rpc-1"},
        "reason": "Destructive requests need a ticket number.",
    }
    assert log[-1].data == {"turn": 0, "reason": {"kind": "blocked"}}
    assert seen[0].human and seen[0].turn == 0
    assert scripted_llm.requests == []  # the model never saw it
    result = next(e for e in log if e.type == "hook/result")
    assert result.data["stderrSummary"] == "Destructive requests need a ticket number."
    assert result.data["exitCode"] == 2 and result.data["durationMs"] == 12.5
    # the claim is logged with the veto: the prompt is not left queued
    assert agent_of(engine, sid).input.queue_items() == []

    # a prompt the gate passes runs as usual, as the next turn
    scripted_llm.enqueue(Reply(text="fine"))
    await engine.agents.prompt(sid, "queue", [TextInput(text="list the build dir")], "rpc-2")
    await wait_quiet(agent_of(engine, sid))
    log = await log_of(engine, sid)
    tail = types(log)[5:]
    assert tail[:4] == ["turn/start", "hook/invoked", "hook/result", "user/message"]
    assert "prompt/blocked" not in tail and "turn/end" in tail
    ends = [e.data["reason"] for e in log if e.type == "turn/end"]
    assert ends == [{"kind": "blocked"}, {"kind": "completed"}]
    assert len(scripted_llm.requests) == 1


async def test_gates_run_in_order_the_first_veto_wins_and_a_failing_gate_vetoes(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    asked: list[str] = []

    async def first(check: PromptCheck) -> Veto | None:
        asked.append("first")
        return Veto("  ") if "veto" in check.message.content[0].text else None  # type: ignore[union-attr]

    async def second(check: PromptCheck) -> Veto | None:
        asked.append("second")
        raise RuntimeError("policy file unreadable")

    remove_first = engine.parts.prompt_gates.add(first)
    engine.parts.prompt_gates.add(second)
    await engine.agents.prompt(sid, "queue", [TextInput(text="please veto")], "r1")
    await wait_quiet(agent_of(engine, sid))
    assert asked == ["first"]
    log = await log_of(engine, sid)
    reasons = [e.data["reason"] for e in log if e.type == "prompt/blocked"]
    assert reasons == ["A prompt check refused this prompt."]  # a blank reason gets the default

    remove_first()
    await engine.agents.prompt(sid, "queue", [TextInput(text="anything")], "r2")
    await wait_quiet(agent_of(engine, sid))
    log = await log_of(engine, sid)
    reasons = [e.data["reason"] for e in log if e.type == "prompt/blocked"]
    assert reasons[1] == "A prompt check failed (RuntimeError); the prompt was not sent."
    assert asked == ["first", "second"]
    assert scripted_llm.requests == []


async def test_no_gate_keeps_the_one_write_opening(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    scripted_llm.enqueue(Reply(text="hi"))
    await engine.agents.prompt(sid, "queue", [TextInput(text="hello")], "r1")
    await wait_quiet(agent_of(engine, sid))
    log = await log_of(engine, sid)
    kinds = [e.type for e in log if e.type not in AUDIT - {"agent/inbox/spliced"}]
    assert kinds[:4] == ["agent/inbox/spliced", "agent/inbox/spliced", "turn/start", "user/message"]
    start = next(e for e in log if e.type == "turn/start")
    claim = log[start.seq - 1] if log[start.seq - 1].type == "agent/inbox/spliced" else None
    assert claim is not None and claim.time == start.time  # the claim and the start: one write


async def test_a_cancel_while_the_gates_think_keeps_the_prompt(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    entered = asyncio.Event()

    async def slow(check: PromptCheck) -> Veto | None:
        entered.set()
        await asyncio.Event().wait()  # until cancelled
        return None

    engine.parts.prompt_gates.add(slow)
    await engine.agents.prompt(sid, "queue", [TextInput(text="keep me")], "r1")
    await asyncio.wait_for(entered.wait(), 30)
    assert await engine.agents.cancel(sid)
    await wait_quiet(agent_of(engine, sid))
    log = await log_of(engine, sid)
    assert types(log) == ["turn/start", "user/message", "turn/end"]
    assert log[-1].data["reason"] == {"kind": "aborted", "by": "user"}


async def test_a_crash_while_the_gates_think_leaves_the_prompt_queued(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    entered = asyncio.Event()

    async def stuck(check: PromptCheck) -> Veto | None:
        entered.set()
        await asyncio.Event().wait()
        return None

    engine.parts.prompt_gates.add(stuck)
    await engine.agents.prompt(sid, "queue", [TextInput(text="survive me")], "r1")
    await asyncio.wait_for(entered.wait(), 30)
    await engine.parts.store.flush()
    # what a crash leaves on disk now: the queued prompt and an open turn with no claim
    on_disk = await engine.parts.store.events(sid, 0)
    assert [e.type for e in on_disk if e.type not in AUDIT - {"agent/inbox/spliced"}] == [
        "agent/inbox/spliced",
        "turn/start",
    ]
    inbox = replay([e for e in on_disk if e.type == "agent/inbox/spliced"])
    assert [m.content[0].text for m in inbox.next_turn] == ["survive me"]  # type: ignore[union-attr]
