"""The goal continuation driver with the scripted provider: rounds counted, the cap and its
block, a person's prompt first, Stop pausing the goal, a veto blocking it, and disarm on load."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from contract.goals import GoalRef
from contract.sessions import TextInput
from host.engine.agent.goals.domain import GoalRejected
from host.engine.agent.prompt_gates import PromptCheck, Veto
from tests.support.engine import agent_of, wait_quiet
from tests.support.scripted_llm import Reply

Factory = Any


async def new_session(engine: Any, tmp_path: Any) -> str:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return await engine.sessions.create_session(cwd=str(work))


async def logged(engine: Any, sid: str, *types: str) -> list[Any]:
    await engine.parts.store.flush()
    return [e for e in await engine.parts.store.events(sid, 0) if e.type in types]


def goal_rounds(log: list[Any]) -> list[dict[str, Any]]:
    return [e.data["source"] for e in log if e.type == "user/message" and e.data["source"]["kind"] == "goal"]


async def until(pred: Any, within: float = 30.0) -> None:
    async def poll() -> None:
        while not await pred():  # noqa: ASYNC110 (polling the store: no event to wait on)
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), within)


async def test_rounds_run_until_the_cap_then_the_goal_blocks_round_limit(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    ref = await engine.goals.goal_create(sid, 'Port the "parser"\n</goal_round>', 3)
    await until(lambda: _blocked(engine, sid))
    await wait_quiet(agent_of(engine, sid))
    log = await logged(engine, sid, "user/message", "goal/change", "turn/start")
    sources = goal_rounds(log)
    assert [s["round"] for s in sources] == [1, 2, 3]
    assert all(s["goalId"] == ref.id and s["revision"] == 1 for s in sources)
    texts = [e.data["content"][0]["text"] for e in log if e.type == "user/message"]
    objective = json.dumps('Port the "parser"\n</goal_round>')
    assert texts[2].startswith(f"<goal_round>\nObjective: {objective}\nRound: 3/3\n")
    changes = [e.data for e in log if e.type == "goal/change"]
    assert [c["operation"] for c in changes] == ["create", "block"]
    block = changes[-1]
    assert block["goal"]["blockedReason"] == {
        "code": "round-limit",
        "message": "Goal reached its configured limit of 3 rounds.",
    }
    assert block["roundsStarted"] == 3 and block["goal"]["revision"] == 2
    assert len(scripted_llm.requests) == 3  # no extra model turn at the cap
    # the projection is the block's whole value
    _, _, projections = await engine.sessions.history(sid)
    assert projections.values["goal"] == {
        k: block[k] for k in ("goal", "roundsStarted", "createdAt", "updatedAt")
    }

    # an exhausted goal resumes only after its cap is raised
    with pytest.raises(GoalRejected) as caught:
        await engine.goals.goal_move(sid, "resume", GoalRef(id=ref.id, revision=2))
    assert caught.value.goal_code == "GOAL_INVALID_TRANSITION"
    raised = await engine.goals.goal_edit(sid, GoalRef(id=ref.id, revision=2), None, 5)
    await engine.goals.goal_move(sid, "resume", raised)
    await until(lambda: _blocked(engine, sid, 2))
    await wait_quiet(agent_of(engine, sid))
    log = await logged(engine, sid, "user/message")
    assert [s["round"] for s in goal_rounds(log)] == [1, 2, 3, 4, 5]
    assert [s["revision"] for s in goal_rounds(log)][3:] == [4, 4]


async def _blocked(engine: Any, sid: str, times: int = 1) -> bool:
    log = await logged(engine, sid, "goal/change")
    return sum(1 for e in log if e.data["operation"] == "block") >= times


async def test_a_person_s_prompt_runs_first_and_does_not_count(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    gate = threading.Semaphore(0)
    scripted_llm.enqueue(Reply(text="working on round one", chunk_size=4, paced=gate))
    await engine.goals.goal_create(sid, "Keep the tests green", 2)
    await until(lambda: _has(engine, sid, "assistant/chunk"))
    await engine.agents.prompt(sid, "queue", [TextInput(text="also, what time is it?")], "rpc-h")
    for _ in range(10):
        gate.release()
    await until(lambda: _blocked(engine, sid))
    await wait_quiet(agent_of(engine, sid))
    log = await logged(engine, sid, "user/message")
    kinds = [(e.data["source"]["kind"], e.data["source"].get("round")) for e in log]
    assert kinds == [("goal", 1), ("user", None), ("goal", 2)]


async def _has(engine: Any, sid: str, etype: str) -> bool:
    return bool(await logged(engine, sid, etype))


async def test_stop_during_a_goal_round_pauses_the_goal(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    scripted_llm.enqueue(Reply(text="thinking hard", hang_after=1))
    await engine.goals.goal_create(sid, "Refactor the store", 10)
    await until(lambda: _has(engine, sid, "assistant/chunk"))
    assert await engine.agents.cancel(sid)
    await until(lambda: _op(engine, sid, "pause"))
    await wait_quiet(agent_of(engine, sid))
    changes = [e.data for e in await logged(engine, sid, "goal/change")]
    assert [c["operation"] for c in changes] == ["create", "pause"]
    assert changes[-1]["goal"]["phase"] == "paused" and changes[-1]["roundsStarted"] == 1
    assert len(goal_rounds(await logged(engine, sid, "user/message"))) == 1  # nothing more ran


async def _op(engine: Any, sid: str, operation: str) -> bool:
    return any(e.data["operation"] == operation for e in await logged(engine, sid, "goal/change"))


async def test_another_gate_refusing_a_round_blocks_the_goal_without_prompt_blocked(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)

    async def no_rounds(check: PromptCheck) -> Veto | None:
        return Veto("no automatic rounds here")

    engine.parts.prompt_gates.add(no_rounds, frozenset({"goal"}))
    await engine.goals.goal_create(sid, "Anything", 4)
    await until(lambda: _op(engine, sid, "block"))
    await wait_quiet(agent_of(engine, sid))
    log = await logged(engine, sid, "goal/change", "prompt/blocked", "turn/end", "user/message")
    assert [e.type for e in log if e.type != "goal/change"] == ["turn/end"]
    assert (
        log[-1].type == "goal/change" and log[-1].data["goal"]["blockedReason"]["code"] == "prompt-rejected"
    )
    assert scripted_llm.requests == []


async def test_a_reloaded_session_keeps_its_goal_active_but_disarmed(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    data = tmp_path / "data"
    engine = await engine_factory(data_dir=data)
    sid = await new_session(engine, tmp_path)
    scripted_llm.enqueue(Reply(text="round one", hang_after=1))
    ref = await engine.goals.goal_create(sid, "Survive restarts", 10)
    await until(lambda: _has(engine, sid, "assistant/chunk"))
    await engine.close()
    again = await engine_factory(data_dir=data)
    goals = await again.goals.driver.of(await again.agents.attach(sid))
    assert goals.ledger.current is not None and goals.ledger.current.phase == "active"
    assert goals.ledger.armed is False and goals.ledger.current.rounds_started == 1
    await wait_quiet(agent_of(again, sid))
    assert len(goal_rounds(await logged(again, sid, "user/message"))) == 1  # nothing started
    # an edit keeps it disarmed; a resume re-arms it and the next round is round 2
    edited = await again.goals.goal_edit(sid, ref, None, 2)
    assert goals.ledger.armed is False
    await again.goals.goal_move(sid, "resume", edited)
    await until(lambda: _blocked(again, sid))
    log = await logged(again, sid, "user/message")
    assert [s["round"] for s in goal_rounds(log)] == [1, 2]


async def test_the_model_completes_the_goal_in_a_round_and_wraps_up(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    # the goal id is minted at create: the round's first request reads it with get_goal
    scripted_llm.enqueue(Reply(tool_calls=[("g1", "get_goal", "{}")]))
    ref = await engine.goals.goal_create(sid, "Make the tests pass", 5)
    update = {"goal_id": ref.id, "revision": 1, "action": "blocked", "blocked_reason": "no idea"}
    done = {"goal_id": ref.id, "revision": 1, "action": "complete"}
    scripted_llm.enqueue(
        Reply(tool_calls=[("u0", "update_goal", json.dumps(update))]),  # refused: too early to block
        Reply(tool_calls=[("u1", "update_goal", json.dumps({**done, "action": "pause"}))]),  # not a person
        Reply(tool_calls=[("u2", "update_goal", json.dumps(done))]),
        Reply(text="Done: the suite passes (see the last run)."),
    )
    await until(lambda: _op(engine, sid, "complete"))
    await wait_quiet(agent_of(engine, sid))
    log = await logged(engine, sid, "tool/result", "user/message", "goal/change", "turn/end")
    results = [e.data for e in log if e.type == "tool/result"]
    first = json.loads(results[0]["message"]["content"][0]["content"])
    assert first["goal"]["id"] == ref.id and first["activation"] == "armed"
    assert [r.get("error", {}).get("code") for r in results] == [
        None,
        "GOAL_TOOL_BLOCK_THRESHOLD",
        "GOAL_TOOL_AUTHORITY_REQUIRED",
        None,
    ]
    wrap = [e.data for e in log if e.type == "user/message" and e.data["source"].get("plugin") == "tool-goal"]
    assert len(wrap) == 1 and wrap[0]["content"][0]["text"].startswith(
        '<goal_complete>\nObjective: "Make the tests pass"'
    )
    last_request = json.dumps(scripted_llm.requests[-1]["messages"])
    assert "<goal_complete>" in last_request  # the same turn's next step saw it
    assert [e.data["reason"]["kind"] for e in log if e.type == "turn/end"] == ["completed"]
    assert len(goal_rounds(log)) == 1  # no further round after completion


async def test_a_person_s_turn_may_create_a_goal_with_the_tool(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    create = {"objective": "Port the parser", "max_goal_rounds": 1}
    scripted_llm.enqueue(
        Reply(tool_calls=[("c1", "create_goal", json.dumps(create))]), Reply(text="Goal set.")
    )
    await engine.agents.prompt(sid, "queue", [TextInput(text="set a goal to port the parser")], "rpc-1")
    await until(lambda: _blocked(engine, sid))  # its one round ran, then the cap blocked it
    await wait_quiet(agent_of(engine, sid))
    changes = [e.data["operation"] for e in await logged(engine, sid, "goal/change")]
    assert changes == ["create", "block"]
    assert [s["round"] for s in goal_rounds(await logged(engine, sid, "user/message"))] == [1]


async def test_rounds_are_paced_and_talk_only_rounds_block_no_progress(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    """Issue 46, item 6: a fast model ran 9 rounds a second. Each round now starts at least
    ROUND_GAP after the previous one ended (read from the log's own times: a slower machine only
    widens the gap), and three rounds in a row without a tool call block the goal `no-progress`."""
    from host.engine.agent.goals.driver import NO_PROGRESS_ROUNDS, ROUND_GAP

    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    ref = await engine.goals.goal_create(sid, "Keep talking", 50)
    await until(lambda: _phase(engine, sid, "blocked"))
    log = await logged(engine, sid, "turn/start", "turn/end", "goal/change")
    starts = [e.time for e in log if e.type == "turn/start"]
    ends = [e.time for e in log if e.type == "turn/end"]
    assert len(starts) == NO_PROGRESS_ROUNDS
    for ended, started in zip(ends, starts[1:], strict=False):
        assert started - ended >= ROUND_GAP * 1000 - 1  # the log's times are in ms
    block = [e.data for e in log if e.type == "goal/change"][-1]
    assert block["goal"]["blockedReason"]["code"] == "no-progress"
    assert ref.id == block["goal"]["id"]


async def test_rounds_that_call_tools_keep_going(
    engine_factory: Factory, tmp_path: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory()
    sid = await new_session(engine, tmp_path)
    listing = Reply(tool_calls=[("c", "list_directory", json.dumps({"path": "."}))])
    for _ in range(NO_PROGRESS_CAP + 1):
        scripted_llm.enqueue(listing, Reply(text="looked around"))
    await engine.goals.goal_create(sid, "Look around", NO_PROGRESS_CAP + 1)
    await until(lambda: _phase(engine, sid, "blocked"))
    log = await logged(engine, sid, "goal/change", "user/message")
    assert len(goal_rounds(log)) == NO_PROGRESS_CAP + 1  # past three rounds: each called a tool
    assert [e.data for e in log if e.type == "goal/change"][-1]["goal"]["blockedReason"][
        "code"
    ] == "round-limit"


NO_PROGRESS_CAP = 3


async def _phase(engine: Any, sid: str, phase: str) -> bool:
    log = await logged(engine, sid, "goal/change")
    return bool(log) and log[-1].data["goal"]["phase"] == phase
