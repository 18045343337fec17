"""Compaction against the scripted provider: automatic before a request that would fill the
window, manual (`Engine.compact`, what `/compact` runs), failure, replay after a restart, paging."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contract.content import Message, MessageSource, TextBlock, ToolResultBlock
from contract.sessions import TextInput
from host.engine.agent import compaction
from host.engine.agent.compaction import REPLACEMENT_HEAD, SUMMARY_SYSTEM, shadow_count, transcript
from host.engine.agent.transcript import Surface, fold_surface
from tests.engine.conftest import ev, events_of, frames_until, is_event, user_msg
from tests.support.engine import agent_of, wait_quiet
from tests.support.scripted_llm import Reply

Factory = Any
WINDOW = 2_000
"""Tokens the scripted model holds in these tests: compaction starts past 1,600."""


def text(t: str) -> list[Any]:
    return [TextInput(text=t)]


def usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def contents(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in request["messages"])


async def turn(engine: Any, mux: Any, sid: str, words: str, number: int) -> list[Any]:
    await engine.agents.prompt(sid, "queue", text(words), f"r{number}")
    return events_of(await frames_until(mux, is_event("turn/end", turn=number)))


# ---- the surface and the summary request, without a model ---------------------------------------


def message(role: str, words: str, kind: str = "user") -> Message:
    if role == "tool":
        block: Any = ToolResultBlock(tool_call_id="c", content=words)
        return Message(id=words[:8], role="tool", content=[block], source=MessageSource(kind="tool"))
    return Message(id=words[:8], role=role, content=[TextBlock(text=words)], source=MessageSource(kind=kind))  # type: ignore[arg-type]


def test_a_replacement_takes_the_place_of_surface_positions_on_replay() -> None:
    summary = {**user_msg("summary", "s"), "source": {"kind": "plugin", "plugin": "compact"}}
    log = [
        ev(0, "user/message", user_msg("one", "u1")),
        ev(
            1,
            "assistant/message",
            {"turn": 0, "step": 0, "message": {**user_msg("two", "a1"), "role": "assistant"}},
        ),
        ev(2, "user/message", user_msg("three", "u2")),
        ev(3, "user/message", summary, surface_op={"op": "replace", "start": 0, "end": 1}),
        ev(4, "user/message", user_msg("four", "u3")),
    ]
    surface = fold_surface(log)
    assert [n.seq for n in surface.nodes] == [3, 2, 4]  # in place of the first two, not appended
    again = fold_surface(
        [*log, ev(5, "user/message", summary, surface_op={"op": "replace", "start": 1, "end": 0})]
    )
    assert [n.seq for n in again.nodes] == [3, 5, 2, 4]  # start > end inserts without removing


def test_automatic_compaction_keeps_recent_surface_and_never_starts_it_with_a_tool_result() -> None:
    surface = Surface()
    for seq, (role, words) in enumerate(
        [
            ("user", "a" * 400),
            ("assistant", "b" * 400),
            ("tool", "c" * 100),
            ("user", "d" * 100),
            ("assistant", "e"),
        ]
    ):
        surface.add(seq, message(role, words))
    assert shadow_count(surface, keep_chars=None) == 5  # /compact: all of it
    assert shadow_count(surface, keep_chars=300) == 3  # the tool result stays with what it answers
    assert shadow_count(surface, keep_chars=10) == 4  # at least the newest exchange is kept
    only_summary = Surface()
    only_summary.add(
        0,
        message("user", "the summary", kind="plugin").model_copy(
            update={"source": MessageSource.model_validate({"kind": "plugin", "plugin": "compact"})}
        ),
    )
    assert shadow_count(only_summary, keep_chars=None) == 0  # nothing new to compress


def test_the_summary_request_fits_its_budget_by_cutting_long_messages_then_the_middle() -> None:
    surface = Surface()
    for seq in range(400):
        surface.add(seq, message("user" if seq % 2 == 0 else "tool", f"m{seq} " + "x" * 5_000))
    out = transcript(surface.nodes, 40_000)
    assert len(out) <= 40_000
    assert out.startswith("User: m0 ") and "m399 " in out and "messages left out" in out
    short = transcript(surface.nodes[:3], 40_000)
    assert "characters cut" in short and "left out" not in short  # long ones cut to head and tail


# ---- automatic -----------------------------------------------------------------------------------


async def test_automatic_compaction_before_a_request_that_would_fill_the_window(
    engine_factory: Factory, scripted_llm: Any
) -> None:
    scripted_llm.enqueue(
        Reply(text="first answer about apples", usage=usage(900, 100)),
        Reply(text="- the user asked about apples\n- answered", usage=usage(300, 20)),
        Reply(text="second answer", usage=usage(700, 30)),
    )
    engine = await engine_factory(tools={}, windows={"scripted-small": WINDOW})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    first = await turn(engine, mux, sid, "tell me about apples", 0)
    shadowed = [e.seq for e in first if e.type in ("user/message", "assistant/message")]
    # 1,000 tokens counted by the provider + ~750 for this message passes 80 % of 2,000
    events = await turn(engine, mux, sid, "and now pears: " + "p" * 3_000, 1)
    types = [e.type for e in events]
    bracket = types.index("compact/start")
    assert types[bracket : bracket + 4] == ["compact/start", "compact/summary", "user/message", "compact/end"]
    assert types.index("step/start") < bracket < types.index("request/header")
    start, summary, replacing, end = events[bracket : bracket + 4]
    assert start.data == {"compactionId": start.data["compactionId"], "turn": 1}
    assert end.data == {"compactionId": start.data["compactionId"], "turn": 1}
    assert summary.data["shadowedSeqs"] == shadowed
    assert summary.data["shadowedRange"] == {"start": shadowed[0], "end": shadowed[-1]}
    assert summary.data["summary"] == [{"type": "text", "text": "- the user asked about apples\n- answered"}]
    assert summary.data["llmStreamCall"] is True and summary.data["provider"] == "openai-compatible"
    assert replacing.surface_op is not None and replacing.surface_op.model_dump() == {
        "op": "replace",
        "start": 0,
        "end": 1,
    }
    assert set(shadowed) <= set(replacing.source_event_seqs or [])
    assert replacing.data["source"]["plugin"] == "compact"
    # one summary request, then the turn's request carries the summary, not the shadowed turn
    assert len(scripted_llm.requests) == 3
    ask = scripted_llm.requests[1]
    assert ask["messages"][0] == {"role": "system", "content": SUMMARY_SYSTEM}
    assert "tell me about apples" in contents(ask) and "first answer about apples" in contents(ask)
    after = scripted_llm.requests[2]
    assert "tell me about apples" not in contents(after) and "first answer about apples" not in contents(
        after
    )
    assert after["messages"][1]["content"].startswith(REPLACEMENT_HEAD.format(count=2))
    assert after["messages"][2]["content"].startswith("and now pears")
    # the shadowed events stay in the log; paging counts only messages appended to the surface
    page, has_more, _ = await engine.sessions.history(sid, max_messages=2)
    assert [
        e.type for e in page if e.type in ("user/message", "assistant/message") and e.surface_op is None
    ] == [
        "user/message",
        "assistant/message",
    ]
    assert replacing.seq in [e.seq for e in page] and summary.seq in [e.seq for e in page] and has_more
    whole, _, _ = await engine.sessions.history(sid, max_messages=100)
    assert {e.seq for e in whole} >= set(shadowed)


async def test_a_failed_compaction_changes_nothing_and_the_request_goes_ahead(
    engine_factory: Factory, scripted_llm: Any
) -> None:
    scripted_llm.enqueue(
        Reply(text="first answer", usage=usage(900, 100)),
        Reply(status=400, error_message="summaries are not allowed"),
        Reply(text="second answer"),
    )
    engine = await engine_factory(tools={}, windows={"scripted-small": WINDOW})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    await turn(engine, mux, sid, "tell me about apples", 0)
    events = await turn(engine, mux, sid, "and pears " + "p" * 3_000, 1)
    types = [e.type for e in events]
    assert "compact/summary" not in types and not any(e.surface_op for e in events)
    end = events[types.index("compact/end")]
    assert end.data["turn"] == 1 and end.data["error"].startswith("summary:")
    assert "summaries are not allowed" in end.data["error"]
    assert types.index("compact/start") + 1 == types.index("compact/end")
    assert "tell me about apples" in contents(scripted_llm.requests[2])  # the whole history went
    assert events[-1].data["reason"] == {"kind": "completed"}


# ---- manual --------------------------------------------------------------------------------------


async def test_manual_compaction_summarises_everything_in_one_request_and_survives_a_restart(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    for n in range(3):
        scripted_llm.enqueue(Reply(text=f"answer {n}"))
        await turn(engine, mux, sid, f"question {n}", n)
    await wait_quiet(agent_of(engine, sid))
    scripted_llm.enqueue(Reply(text="three questions, three answers"))
    outcome = await engine.agents.compact(sid, command_id="cmd-x-1")
    assert isinstance(outcome, compaction.Compacted) and outcome.shadowed == 6
    assert compaction.describe(outcome) == f"Compacted 6 history items (~{outcome.tokens} tokens)."
    assert len(scripted_llm.requests) == 4
    log, _, _ = await engine.sessions.history(sid, max_messages=100)
    bracket = [e for e in log if e.type.startswith("compact/") or e.surface_op]
    assert [e.type for e in bracket] == ["compact/start", "compact/summary", "user/message", "compact/end"]
    assert bracket[0].data == {
        "compactionId": bracket[0].data["compactionId"],
        "sourceCommandId": "cmd-x-1",
        "turn": None,
    }
    assert bracket[3].data["turn"] is None and "error" not in bracket[3].data
    assert outcome.summary_seq == bracket[1].seq
    assert bracket[2].data["source"]["sourceCommandId"] == "cmd-x-1"
    # nothing new since: nothing to compact, and nothing is written
    assert await engine.agents.compact(sid) is None
    assert (await engine.sessions.history(sid, max_messages=100))[0][-1].seq == log[-1].seq
    await engine.close()
    # a restarted host folds the same surface: the next request carries the summary only
    again = await engine_factory(tools={})
    mux = again.host.subscribe_mux()
    scripted_llm.enqueue(Reply(text="answer 3"))
    await turn(again, mux, sid, "question 3", 3)
    sent = scripted_llm.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "user"]
    assert "three questions, three answers" in sent[1]["content"] and "question 0" not in contents(
        scripted_llm.requests[-1]
    )


async def test_manual_compaction_is_refused_while_a_turn_runs_and_cancel_stops_it(
    engine_factory: Factory, scripted_llm: Any
) -> None:
    scripted_llm.enqueue(Reply(text="slow " * 50, hang_after=2))
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(sid, "queue", text("hello"), "r")
    await frames_until(mux, is_event("assistant/chunk"))
    busy = await engine.agents.compact(sid)
    assert isinstance(busy, compaction.CompactionFailed) and busy.reason == "busy"
    await engine.agents.cancel(sid)
    await wait_quiet(agent_of(engine, sid))
    # a summary that never comes: cancel ends the attempt with compact/end {error}
    scripted_llm.enqueue(Reply(text="never " * 50, hang_after=1))
    import asyncio

    attempt = asyncio.create_task(engine.agents.compact(sid))
    await frames_until(mux, is_event("compact/start"))
    await engine.agents.cancel(sid)
    outcome = await asyncio.wait_for(attempt, 10)
    assert isinstance(outcome, compaction.CompactionFailed) and outcome.reason == "cancelled"
    frames = await frames_until(mux, is_event("compact/end"))
    assert events_of(frames)[-1].data["error"].startswith("cancelled")
