"""A silent provider and a malformed chunk, through a whole turn: the turn ends with one error a
person can read (and a retry in between for the silent one), never a hang or a Python error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contract.sessions import TextInput
from tests.engine.conftest import events_of, frames_until, is_event
from tests.support.scripted_llm import Reply

Factory = Any


async def with_profile(engine: Any, scripted_llm: Any, idle_ms: int = 60_000) -> str:
    profile = {"id": "box", "name": "Box", "baseURL": scripted_llm.base_url, "streamIdleTimeoutMs": idle_ms}
    await engine.config.update_settings("llm-openai-compatible", {"profiles": [profile]}, None)
    sid = await engine.sessions.create_session("/tmp")
    await engine.config.select_model(sid, "box", "scripted-small")
    return sid


async def turn_end(engine: Any, sid: str) -> list[Any]:
    mux = engine.host.subscribe_mux()
    await engine.agents.prompt(sid, "queue", [TextInput(text="hi")], "r")
    return events_of(await frames_until(mux, is_event("turn/end"), 30))


async def test_a_silent_provider_is_retried_then_ends_the_turn(
    engine_factory: Factory, scripted_llm: Any, tmp_path: Path
) -> None:
    engine = await engine_factory(tools={})
    sid = await with_profile(engine, scripted_llm, idle_ms=1000)
    scripted_llm.enqueue(Reply(text="never", hang_after=0), Reply(text="never", hang_after=0))
    events = await turn_end(engine, sid)
    retries = [e.data for e in events if e.type == "request/retry"]
    assert [r["reason"] for r in retries] == ["the provider sent nothing for 1 s"]
    reason = events[-1].data["reason"]
    assert reason["kind"] == "error"
    assert (
        reason["error"]["message"] == "Box: the provider sent nothing for 1 s (after 1 retry)"
    )  # the endpoint by its display name
    assert len(scripted_llm.requests) == 2


async def test_a_malformed_chunk_ends_the_turn_in_words(engine_factory: Factory, scripted_llm: Any) -> None:
    engine = await engine_factory(tools={})
    sid = await with_profile(engine, scripted_llm)
    scripted_llm.enqueue(Reply(raw=[{"choices": ["not an object"]}]))
    events = await turn_end(engine, sid)
    message = events[-1].data["reason"]["error"]["message"]
    assert message == "Box: the provider sent an answer chunk whose `choices` entry is not an object"
    assert "attribute" not in message and len(scripted_llm.requests) == 1  # not retried
