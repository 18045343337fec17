"""Turn slots and attention (docs/decisions.md, "Parallel sessions and attention"): at most N
sessions run turns at once, the rest wait in line and start by themselves; Stop on a waiting
session takes it out of line; each session's attention state comes from the host."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from contract.frames import HostSessionAttention, SessionEventFrame
from contract.sessions import TextInput
from host.engine.agent.slots import TurnSlots
from tests.engine.conftest import frames_until
from tests.support.engine import agent_of, queued, wait_quiet
from tests.support.scripted_llm import Reply

Factory = Any


async def test_slots_grant_in_line_and_a_withdrawn_waiter_leaves_it() -> None:
    places: list[tuple[str, int | None]] = []
    limit = [1]
    slots = TurnSlots(lambda: limit[0], lambda sid, ahead: places.append((sid, ahead)))
    a = await slots.take("a")
    b = asyncio.create_task(slots.take("b"))
    c = asyncio.create_task(slots.take("c"))
    d = asyncio.create_task(slots.take("d"))
    await asyncio.sleep(0)
    assert slots.waiting() == ["b", "c", "d"] and slots.ahead("d") == 2
    c.cancel()  # Stop on a waiting session
    await asyncio.gather(c, return_exceptions=True)
    assert slots.waiting() == ["b", "d"] and slots.ahead("d") == 1
    assert ("c", None) in places
    a.release()
    a.release()  # idempotent: it frees one slot only
    slot_b = await b
    assert slots.holding == 1 and slots.waiting() == ["d"] and slots.ahead("d") == 0
    limit[0] = 2
    slots.settle()  # the limit was raised: the next in line goes at once
    slot_d = await d
    assert slots.holding == 2 and slots.waiting() == []
    slot_b.release()
    slot_d.release()
    assert slots.holding == 0


async def attention_of(host: Any, sid: str, state: str) -> HostSessionAttention:
    frames = await frames_until(
        host,
        lambda f: isinstance(f, HostSessionAttention) and f.session_id == sid and f.attention.state == state,
    )
    last = frames[-1]
    assert isinstance(last, HostSessionAttention)
    return last


async def test_with_one_slot_a_second_turn_waits_then_runs(
    scripted_llm: Any, engine_factory: Factory
) -> None:
    scripted_llm.enqueue(
        Reply(text="alpha " * 30, hang_after=2, when="alpha"), Reply(text="beta done", when="beta")
    )
    engine = await engine_factory(tools={})
    await engine.config.update_settings("sessions", {"maxRunningTurns": 1}, None)
    host = engine.host.subscribe_host()
    a = await engine.sessions.create_session("/tmp")
    b = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(a, "queue", [TextInput(text="alpha")], "r1")
    await attention_of(host, a, "running")
    await engine.agents.prompt(b, "queue", [TextInput(text="beta")], "r2")
    waiting = await attention_of(host, b, "waiting")
    assert waiting.attention.ahead == 0
    listed = {s.session_id: s.attention for s in await engine.sessions.list_sessions()}
    assert listed[b] is not None and listed[b].state == "waiting"
    assert listed[a] is not None and listed[a].state == "running"
    assert [r for r in scripted_llm.requests if "beta" in str(r["messages"])] == []
    await engine.agents.cancel(a)  # the slot frees: b starts by itself
    await attention_of(host, b, "done-unread")
    await wait_quiet(agent_of(engine, b))
    assert any("beta" in str(r["messages"]) for r in scripted_llm.requests)
    await engine.sessions.mark_seen(b)
    await attention_of(host, b, "idle")
    listed = {s.session_id: s.attention for s in await engine.sessions.list_sessions()}
    assert listed[b] is None and listed[a] is None  # idle rows carry nothing


async def test_stop_on_a_waiting_session_takes_it_out_of_line(
    scripted_llm: Any, engine_factory: Factory
) -> None:
    scripted_llm.enqueue(Reply(text="alpha " * 30, hang_after=2, when="alpha"))
    engine = await engine_factory(tools={})
    await engine.config.update_settings("sessions", {"maxRunningTurns": 1}, None)
    host = engine.host.subscribe_host()
    a = await engine.sessions.create_session("/tmp")
    b = await engine.sessions.create_session("/tmp")
    c = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(a, "queue", [TextInput(text="alpha")], "r1")
    await attention_of(host, a, "running")
    await engine.agents.prompt(b, "queue", [TextInput(text="beta")], "r2")
    await engine.agents.prompt(c, "queue", [TextInput(text="gamma")], "r3")
    assert (await attention_of(host, c, "waiting")).attention.ahead == 1
    assert await engine.agents.cancel(b) is True
    assert (await attention_of(host, c, "waiting")).attention.ahead == 0  # moved up
    await wait_quiet(agent_of(engine, b))
    assert queued(engine, b) == []  # its prompt left with it (logged `canceled`)
    assert agent_of(engine, b).next_turn == 0  # no turn ran
    await engine.agents.cancel(a)
    await wait_quiet(agent_of(engine, c))
    texts = [str(r["messages"]) for r in scripted_llm.requests]
    assert not any("beta" in t for t in texts) and any("gamma" in t for t in texts)


async def test_sessions_stream_at_once_up_to_the_limit(scripted_llm: Any, engine_factory: Factory) -> None:
    scripted_llm.enqueue(
        Reply(text="one " * 30, hang_after=2, when="first"),
        Reply(text="two " * 30, hang_after=2, when="second"),
    )
    engine = await engine_factory(tools={})
    host = engine.host.subscribe_host()
    mux = engine.host.subscribe_mux()
    ids = [await engine.sessions.create_session("/tmp") for _ in range(2)]
    for sid, text in zip(ids, ["first", "second"], strict=True):
        await engine.agents.prompt(sid, "queue", [TextInput(text=text)], f"r-{text}")
    for sid in ids:
        await attention_of(host, sid, "running")

    streaming: set[str] = set()

    def both_streaming(f: Any) -> bool:
        if isinstance(f, SessionEventFrame) and f.event.type == "assistant/chunk":
            streaming.add(f.session_id)
        return streaming == set(ids)

    await frames_until(mux, both_streaming)  # both streams are open at the same time
    assert engine.parts.pool.agents[ids[0]].turn_open and engine.parts.pool.agents[ids[1]].turn_open
    for sid in ids:
        await engine.agents.cancel(sid)
        await wait_quiet(agent_of(engine, sid))


@pytest.mark.parametrize("value", [0, 65, "four"])
async def test_a_bad_limit_is_refused(engine_factory: Factory, value: Any) -> None:
    from host.engine.errors import SettingsRejected

    engine = await engine_factory(tools={})
    with pytest.raises(SettingsRejected):
        await engine.config.update_settings("sessions", {"maxRunningTurns": value}, None)
