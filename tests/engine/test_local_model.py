"""The built-in SmolLM2 model, run in-process by llama.cpp (xllamacpp)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from contract.content import Message, MessageSource, TextBlock, ToolCallBlock, ToolResultBlock
from host.engine.llm import LlmRequest, LocalModelAdapter
from host.engine.llm.local import MODEL_ID, active_generations, local_model_context, wait_generations_done

pytestmark = pytest.mark.model


def user(text: str) -> Message:
    return Message(id="u", role="user", content=[TextBlock(text=text)], source=MessageSource(kind="user"))


async def test_streams_a_text_answer(capsys: pytest.CaptureFixture[str]) -> None:
    adapter = LocalModelAdapter()
    load = await adapter.preload()
    started = time.monotonic()
    first: float | None = None
    chunks: list[Any] = []
    async for chunk in adapter.stream(
        LlmRequest(model=MODEL_ID, messages=[user("Name three colours.")], max_tokens=64)
    ):
        if first is None and chunk.type == "text-delta":
            first = time.monotonic() - started
        chunks.append(chunk)
    elapsed = time.monotonic() - started
    types = [c.type for c in chunks]
    assert types[0] == "block-start" and chunks[0].block_type == "text" and chunks[0].index == 0
    deltas = [c.text for c in chunks if c.type == "text-delta"]
    assert len(deltas) >= 2 and "".join(deltas).strip()
    end = next(c for c in chunks if c.type == "block-end")
    assert end.block.text == "".join(deltas)
    usage = next(c.usage for c in chunks if c.type == "usage")
    assert usage.input_tokens > 0 and 0 < usage.output_tokens <= 64
    assert types.count("finish") == 1 and types[-1] == "finish"
    assert chunks[-1].reason in ("stop", "max-tokens")
    with capsys.disabled():
        rate = usage.output_tokens / max(elapsed - (first or 0), 1e-6)
        print(f"\n[local model] load {load:.2f}s, first token {first:.2f}s, {rate:.0f} tokens/s")


async def test_cancel_stops_generation_promptly() -> None:
    adapter = LocalModelAdapter()
    await adapter.preload()
    got = asyncio.Event()
    deltas: list[str] = []

    async def consume() -> None:
        request = LlmRequest(model=MODEL_ID, messages=[user("Write a very long story about a dragon.")])
        async for chunk in adapter.stream(request):
            if chunk.type == "text-delta":
                deltas.append(chunk.text)
                got.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got.wait(), 30)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - cancelled_at < 10
    assert await asyncio.to_thread(wait_generations_done, 10), "the llama.cpp generation thread kept running"
    assert active_generations() == 0
    assert len(deltas) < 400
    # The slot is free again: a short follow-up completes.
    follow = [
        c async for c in adapter.stream(LlmRequest(model=MODEL_ID, messages=[user("Hi")], max_tokens=8))
    ]
    assert follow[-1].type == "finish"


async def test_tool_history_is_rendered_as_text() -> None:
    adapter = LocalModelAdapter()
    assert adapter.supports_tools is False
    model = MessageSource(kind="model")
    history = [
        user("What files are here?"),
        Message(
            id="a",
            role="assistant",
            content=[ToolCallBlock(id="c1", name="list_dir", arguments="{}")],
            source=model,
        ),
        Message(
            id="t", role="tool", content=[ToolResultBlock(tool_call_id="c1", content="a.txt")], source=model
        ),
    ]
    chunks = [c async for c in adapter.stream(LlmRequest(model=MODEL_ID, messages=history, max_tokens=16))]
    assert chunks[-1].type == "finish" and any(c.type == "text-delta" for c in chunks)
    assert [m.id for m in await adapter.list_models()] == [MODEL_ID]


async def test_a_long_local_session_is_compacted_instead_of_losing_turns(tmp_path: Any) -> None:
    """The embedded model's window (n_ctx) is nearly full: the next request is preceded by a
    summary the model itself writes, and the turn completes; nothing is silently dropped."""
    from contract.events import SessionEvent
    from contract.sessions import TextInput
    from host.engine.agent.compaction import REPLACEMENT_HEAD
    from host.engine.engine import Engine
    from host.engine.llm.overrides import RuntimeOverrides
    from host.engine.store import SessionHeader
    from tests.support.engine import agent_of, wait_quiet

    engine = await Engine.open(tmp_path, overrides=RuntimeOverrides(provider="local"), tools={})
    try:
        sid = "local-long"
        engine.parts.store.register(SessionHeader(id=sid, created_at=1, cwd=str(tmp_path)))
        # A 2,048-token window (set live: the model reloads with it) keeps the model's work small.
        await engine.config.update_settings("llm-local", {"contextSize": 2048}, None)
        story = "The garden has tomatoes, beans and a small pond with three goldfish. " * 10
        log: list[SessionEvent] = []
        for turn in range(8):  # ~5,900 characters: past 80 % of 2,048 tokens at 3 characters each
            base = len(log)
            ask = {
                "id": f"u{turn}",
                "role": "user",
                "content": [{"type": "text", "text": f"Note {turn}: {story}"}],
                "source": {"kind": "user"},
            }
            reply = {
                "id": f"a{turn}",
                "role": "assistant",
                "content": [{"type": "text", "text": f"Noted {turn}."}],
                "source": {"kind": "model"},
            }
            log += [
                SessionEvent(type="turn/start", seq=base, time=1, data={"turn": turn, "trigger": "user"}),
                SessionEvent(type="user/message", seq=base + 1, time=1, data=ask),
                SessionEvent(
                    type="assistant/message",
                    seq=base + 2,
                    time=1,
                    data={"turn": turn, "step": 0, "message": reply},
                ),
                SessionEvent(
                    type="turn/end",
                    seq=base + 3,
                    time=1,
                    data={"turn": turn, "reason": {"kind": "completed"}},
                ),
            ]
        engine.parts.store.append(sid, log)
        await engine.agents.prompt(sid, "queue", [TextInput(text="What is in the pond?")], "r")
        agent = agent_of(engine, sid)
        await wait_quiet(agent, within=600)
        events, _, _ = await engine.sessions.history(sid, max_messages=1000)
        assert local_model_context() == 2048  # reloaded with the new setting, no restart
        summary = next(e for e in events if e.type == "compact/summary")
        assert summary.data["provider"] == "local" and summary.data["summary"][0]["text"].strip()
        end = next(e for e in events if e.type == "compact/end")
        assert "error" not in end.data and end.data["turn"] == 8
        turn_end = next(e for e in events if e.type == "turn/end" and e.data["turn"] == 8)
        # the model samples (temperature 0.3): its answer may run to the length cap, never an error
        assert turn_end.data["reason"]["kind"] in ("completed", "max-tokens")
        first = agent.conversation.history[0]
        count = len(summary.data["shadowedSeqs"])
        assert first.content[0].text.startswith(REPLACEMENT_HEAD.format(count=count))  # type: ignore[union-attr]
        assert agent.conversation.history[-2].content[0].text == "What is in the pond?"  # type: ignore[union-attr]
    finally:
        await engine.close()
