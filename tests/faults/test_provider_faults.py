"""A misbehaving provider — hung, dropped, 500, 429, malformed chunks — ends the turn with one
clear message (or recovers by retrying), and the host keeps answering throughout."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from contract.sessions import TextInput
from host.engine.engine import Engine
from host.engine.llm.overrides import RuntimeOverrides
from tests.engine.conftest import events_of, frames_until, is_event
from tests.support.scripted_llm import Reply, ScriptedLlmServer

WAIT = 30.0


@pytest.fixture
async def engine(tmp_path: Path, scripted_llm: ScriptedLlmServer) -> AsyncIterator[Engine]:
    """A host whose provider gives up on a silent stream after 1 s and retries quickly, twice."""
    overrides = RuntimeOverrides(provider="openai-compatible", base_url=scripted_llm.base_url, model="m")
    opened = await Engine.open(
        tmp_path / "data",
        overrides=overrides,
        adapter_options={"retry_base_delay": 0.01, "max_retries": 2},
        tools={},
    )
    profile = {
        "id": "openai-compatible",  # the command line's route, with a 1 s idle timeout
        "name": "Scripted",
        "baseURL": scripted_llm.base_url,
        "streamIdleTimeoutMs": 1000,
    }
    await opened.config.update_settings("llm-openai-compatible", {"profiles": [profile]}, None)
    yield opened
    await opened.close()


async def run(engine: Engine, reply: Reply | list[Reply], llm: ScriptedLlmServer) -> list[Any]:
    """One turn against `reply`; returns its events. The host must answer while it runs."""
    llm.enqueue(*(reply if isinstance(reply, list) else [reply]))
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(sid, "queue", [TextInput(text="go")], "r1")
    ending = asyncio.ensure_future(frames_until(mux, is_event("turn/end"), WAIT))
    while not ending.done():  # the host keeps answering while the provider misbehaves
        assert [s.session_id for s in await engine.sessions.list_sessions()] == [sid]
        await engine.sessions.history(sid)
        await asyncio.sleep(0.05)
    return events_of(await ending)


def error_of(events: list[Any]) -> str:
    end = events[-1]
    assert end.type == "turn/end" and end.data["reason"]["kind"] == "error", end.data
    message = end.data["reason"]["error"]["message"]
    assert message and "\n" not in message and "Traceback" not in message
    return str(message)


async def test_a_hung_stream_times_out_with_one_message(engine: Engine, scripted_llm: Any) -> None:
    events = await run(
        engine, Reply(text="hello there, I will now stop", chunk_size=4, hang_after=3), scripted_llm
    )
    message = error_of(events)
    assert "sent nothing for 1 s" in message and "cut off mid-stream" in message
    interrupted = [e for e in events if e.type == "assistant/message"]
    assert interrupted and interrupted[-1].data.get("interrupted") is True  # what came is kept


async def test_a_hung_stream_can_be_cancelled_at_once(engine: Engine, scripted_llm: Any) -> None:
    scripted_llm.enqueue(Reply(text="x" * 40, chunk_size=4, hang_after=2))
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(sid, "queue", [TextInput(text="go")], "r1")
    await frames_until(mux, is_event("assistant/chunk"), WAIT)
    assert await engine.agents.cancel(sid)
    end = events_of(await frames_until(mux, is_event("turn/end"), WAIT))[-1]
    assert end.data["reason"] == {"kind": "aborted", "by": "user"}
    assert scripted_llm.wait_for_disconnects(1, WAIT)  # the HTTP stream was closed


async def test_a_dropped_connection_mid_answer(engine: Engine, scripted_llm: Any) -> None:
    events = await run(engine, Reply(text="partial answer " * 5, chunk_size=5, drop_after=4), scripted_llm)
    message = error_of(events)
    assert "cut off mid-stream" in message


async def test_a_drop_before_the_first_chunk_is_retried(engine: Engine, scripted_llm: Any) -> None:
    events = await run(engine, [Reply(text="never", drop_after=0), Reply(text="second try")], scripted_llm)
    assert events[-1].data["reason"] == {"kind": "completed"}
    assert [e.type for e in events].count("request/retry") == 1


async def test_500_is_retried_then_reported(engine: Engine, scripted_llm: Any) -> None:
    events = await run(engine, [Reply(status=500)] * 3, scripted_llm)
    message = error_of(events)
    assert "500" in message and "2 retries" in message
    assert events[-1].data["reason"]["error"].get("status") == 500
    assert [e.type for e in events].count("request/retry") == 2


async def test_429_with_retry_after_then_success(engine: Engine, scripted_llm: Any) -> None:
    events = await run(engine, [Reply(status=429, retry_after=0.2), Reply(text="fine now")], scripted_llm)
    assert events[-1].data["reason"] == {"kind": "completed"}
    retry = next(e for e in events if e.type == "request/retry")
    assert retry.data["delayMs"] == 200
    answer = next(e for e in events if e.type == "assistant/message")
    assert answer.data["message"]["content"][0]["text"] == "fine now"


async def test_a_malformed_chunk_ends_the_turn_with_one_message(engine: Engine, scripted_llm: Any) -> None:
    events = await run(
        engine, Reply(text="good start then garbage", chunk_size=4, garbage_after=2), scripted_llm
    )
    message = error_of(events)
    assert "malformed" in message
