"""Deltas merge into fewer chunk events only while commits lag behind the provider
(docs/decisions.md, "Coalescing deltas"): a burst arrives whole and in order, a provider slower
than the host keeps one event per delta."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from contract.content import (
    BlockEndChunk,
    BlockStartChunk,
    FinishChunk,
    ReasoningBlock,
    ReasoningDeltaChunk,
    TextBlock,
    TextDeltaChunk,
    ToolCallDeltaChunk,
)
from contract.sessions import TextInput
from host.engine.agent.stream_buffer import coalesced, merge
from tests.engine.conftest import events_of, frames_until, is_event
from tests.support.scripted_llm import Reply

ARGS = '{"command": "' + "echo x; " * 500 + '"}'


def test_merge_joins_each_run_of_one_block_and_keeps_everything_else_in_place() -> None:
    chunks = [
        BlockStartChunk(index=0, block_type="reasoning"),
        ReasoningDeltaChunk(index=0, text="th"),
        ReasoningDeltaChunk(index=0, text="ink"),
        BlockEndChunk(index=0, block=ReasoningBlock(text="think")),
        BlockStartChunk(index=1, block_type="text"),
        TextDeltaChunk(index=1, text="a"),
        TextDeltaChunk(index=1, text="b"),
        TextDeltaChunk(index=2, text="other block"),
        TextDeltaChunk(index=1, text="c"),
        ToolCallDeltaChunk(index=3, id="c1", name="bash", arguments_delta='{"c'),
        ToolCallDeltaChunk(index=3, id="c1", arguments_delta='md": 1}'),
        ToolCallDeltaChunk(index=3, id="c1", name="renamed", arguments_delta=""),
        ToolCallDeltaChunk(index=4, id="c2", name="read", arguments_delta="{}"),
        FinishChunk(reason="tool-calls"),
    ]
    merged = merge(chunks)
    assert [c.model_dump(by_alias=True, exclude_none=True) for c in merged] == [
        {"type": "block-start", "index": 0, "blockType": "reasoning"},
        {"type": "reasoning-delta", "index": 0, "text": "think"},
        {"type": "block-end", "index": 0, "block": {"type": "reasoning", "text": "think"}},
        {"type": "block-start", "index": 1, "blockType": "text"},
        {"type": "text-delta", "index": 1, "text": "ab"},
        {"type": "text-delta", "index": 2, "text": "other block"},
        {"type": "text-delta", "index": 1, "text": "c"},
        {
            "type": "tool-call-delta",
            "index": 3,
            "id": "c1",
            "name": "bash",
            "argumentsDelta": '{"cmd": 1}',
        },
        {"type": "tool-call-delta", "index": 3, "id": "c1", "name": "renamed", "argumentsDelta": ""},
        {"type": "tool-call-delta", "index": 4, "id": "c2", "name": "read", "argumentsDelta": "{}"},
        {"type": "finish", "reason": "tool-calls"},
    ]
    assert merge([chunks[5]]) == [chunks[5]] and merge([]) == []


async def test_a_block_start_and_its_first_delta_are_one_batch_for_a_waiting_turn() -> None:
    """The turn waits for the stream; one read brings a block's start and its first delta: both
    are handed over together, so the first token costs one commit wait, not two."""
    opened, more = asyncio.Event(), asyncio.Event()
    commits: list[int] = []

    async def provider() -> AsyncIterator[Any]:
        await opened.wait()  # the turn is already waiting when the first read arrives
        yield BlockStartChunk(index=0, block_type="text")
        yield TextDeltaChunk(index=0, text="Hi")
        await more.wait()  # the next read
        yield TextDeltaChunk(index=0, text=" there")

    async def committed() -> None:
        commits.append(1)
        more.set()

    batches: list[list[str]] = []
    async with asyncio.timeout(10):
        stream = coalesced(provider(), committed)
        asyncio.get_running_loop().call_soon(opened.set)
        async for batch in stream:
            batches.append([c.type for c in batch])
    assert batches == [["block-start", "text-delta"], ["text-delta"]]
    assert commits == [1]


def joined(chunks: list[dict[str, Any]], kind: str, field: str = "text") -> str:
    return "".join(c[field] for c in chunks if c["type"] == kind)


async def test_a_burst_arrives_whole_and_in_order_in_fewer_events_than_deltas(
    engine_factory: Any, scripted_llm: Any
) -> None:
    reasoning, text = "why " * 400, "abcd" * 2000
    scripted_llm.enqueue(
        Reply(reasoning=reasoning, text=text, tool_calls=[("c1", "bash", ARGS)], chunk_size=4),
        Reply(text="ok"),
    )
    deltas = (len(reasoning) + len(text) + len(ARGS)) // 4 + 1  # +1: the call's opening delta
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(sid, "queue", [TextInput(text="burst")], "r1")
    events = events_of(await frames_until(mux, is_event("turn/end"), 60))
    assert [e.seq for e in events] == list(range(events[0].seq, events[0].seq + len(events)))
    first = [e for e in events if e.data.get("step") == 0]
    chunks = [e.data["chunk"] for e in first if e.type == "assistant/chunk"]
    assert joined(chunks, "reasoning-delta") == reasoning
    assert joined(chunks, "text-delta") == text
    assert joined(chunks, "tool-call-delta", "argumentsDelta") == ARGS
    assert len([c for c in chunks if c["type"].endswith("-delta")]) < deltas
    message = next(e for e in first if e.type == "assistant/message")
    assert message.source_event_seqs == [e.seq for e in first if e.type == "assistant/chunk"]
    content = message.data["message"]["content"]
    assert [b.get("text") or b.get("arguments") for b in content] == [reasoning, text, ARGS]
    stored, _, _ = await engine.sessions.history(sid, max_messages=10_000)
    # the same seqs as streamed (events after turn/end, e.g. a title, may already follow them)
    streamed = [e for e in stored if events[0].seq <= e.seq <= events[-1].seq]
    assert [e.model_dump() for e in streamed] == [e.model_dump() for e in events]


async def test_a_provider_slower_than_the_host_keeps_one_event_per_delta(
    engine_factory: Any, scripted_llm: Any
) -> None:
    pieces = ["one ", "two ", "thre", "e fo", "ur f", "ive"]
    step = threading.Semaphore(0)
    scripted_llm.enqueue(Reply(text="".join(pieces), chunk_size=4, paced=step))
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    await engine.agents.prompt(sid, "queue", [TextInput(text="slowly")], "r1")
    shown: list[str] = []
    while len(shown) < len(pieces):
        [*_, frame] = await frames_until(mux, is_event("assistant/chunk"))
        if frame.event.data["chunk"]["type"] == "text-delta":
            shown.append(frame.event.data["chunk"]["text"])
            step.release()  # the provider sends the next delta only now
    assert shown == pieces
    events = events_of(await frames_until(mux, is_event("turn/end")))
    message = next(e for e in events if e.type == "assistant/message")
    assert message.data["message"]["content"] == [
        TextBlock(text="".join(pieces)).model_dump(by_alias=True, exclude_none=True)
    ]
