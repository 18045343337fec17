"""Coalescing streamed deltas under back-pressure (docs/decisions.md, "Coalescing deltas").

Every streamed chunk becomes an `assistant/chunk` event that is committed before it is shown, and
that costs more per event than a provider on loopback spends per delta. So the adapter's stream is
read by a task of its own into a buffer, and the turn takes the whole buffer at once: a run of
deltas of one block (text, reasoning or one tool call's arguments) becomes one chunk carrying
their joined text, every other chunk stays as it is, and the turn waits until that batch is
committed before it takes the next. At normal speed the buffer holds what one network read
brought when the turn looks, so each delta stays its own event and the first token is not held
back; in a burst everything that arrived during one commit travels as one event. The wire does
not change: a merged chunk is an ordinary chunk, and joining the deltas gives the same text.

A block's start is never handed over alone when its first delta came in the same read: the two
travel as one batch, so a first token waits for one commit, not two
(docs/decisions/first-token-fan-out.md).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any

from pydantic import BaseModel

from contract.content import (
    STREAM_CHUNK,
    BlockStartChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
)

YIELD_EVERY = 0.005
"""Seconds the reader may parse an already received burst before it lets the turn and the stream
writers run."""
COMMIT_WAIT = 1.0
"""Bound on the wait for a batch's commit: a stuck disk slows the batches down, it never stops
the stream (their frames are still shown only once committed)."""


def as_chunk(raw: Any) -> Any:
    """A contract stream chunk (adapters may yield models or plain dicts)."""
    return raw if isinstance(raw, BaseModel) else STREAM_CHUNK.validate_python(raw)


def _joins(run: Any, chunk: Any) -> bool:
    """Whether `chunk` continues the delta run that `run` starts (same kind, same block)."""
    if type(chunk) is not type(run) or chunk.index != run.index:
        return False
    if isinstance(chunk, ToolCallDeltaChunk):
        return chunk.id == run.id and chunk.name in (None, run.name)
    return isinstance(chunk, TextDeltaChunk | ReasoningDeltaChunk)


def _joined(run: Any, parts: list[str]) -> Any:
    if len(parts) == 1:
        return run
    if isinstance(run, ToolCallDeltaChunk):
        return run.model_copy(update={"arguments_delta": "".join(parts)})
    return run.model_copy(update={"text": "".join(parts)})


def merge(chunks: list[Any]) -> list[Any]:
    """`chunks` with each run of deltas of one block joined into one chunk, order kept."""
    out: list[Any] = []
    run: Any = None
    parts: list[str] = []
    for chunk in chunks:
        if run is not None and _joins(run, chunk):
            parts.append(chunk.arguments_delta if isinstance(chunk, ToolCallDeltaChunk) else chunk.text)
            continue
        if run is not None:
            out.append(_joined(run, parts))
            run, parts = None, []
        if isinstance(chunk, ToolCallDeltaChunk):
            run, parts = chunk, [chunk.arguments_delta]
        elif isinstance(chunk, TextDeltaChunk | ReasoningDeltaChunk):
            run, parts = chunk, [chunk.text]
        else:
            out.append(chunk)
    if run is not None:
        out.append(_joined(run, parts))
    return out


class _Reader:
    """The task that drains the adapter's stream into the buffer."""

    def __init__(self, source: AsyncIterator[Any]) -> None:
        self.buffer: deque[Any] = deque()
        self.arrived = asyncio.Event()
        self.done = False
        self.waiting = False
        """The turn is idle, waiting for a chunk: hand it over at once (no added latency)."""
        self.failure: BaseException | None = None
        self.task = asyncio.create_task(self._read(source), name="turn-stream-reader")

    async def _read(self, source: AsyncIterator[Any]) -> None:
        paced = time.monotonic()
        try:
            async with aclosing(source) as chunks:  # type: ignore[type-var]
                async for raw in chunks:
                    chunk = as_chunk(raw)
                    self.buffer.append(chunk)
                    self.arrived.set()
                    if isinstance(chunk, BlockStartChunk):
                        continue  # its first delta follows in this read: they go together
                    if self.waiting or time.monotonic() - paced > YIELD_EVERY:
                        await asyncio.sleep(0)  # the turn takes what is here
                        paced = time.monotonic()
        except asyncio.CancelledError as exc:
            self.failure = exc  # the turn closes the reader only when it stops reading
            raise
        except Exception as exc:  # handed to the turn after the chunks that came before it
            self.failure = exc
        finally:
            self.done = True
            self.arrived.set()

    def take(self) -> list[Any]:
        batch = list(self.buffer)
        self.buffer.clear()
        return batch

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.wait({self.task})  # never raises the task's error; our own cancel does


async def _bounded(wait: Awaitable[object]) -> None:
    """Wait at most COMMIT_WAIT. (Not `wait_for`: it can swallow a cancellation that arrives as
    the wait ends, and a cancelled turn must stop.)"""
    waiter = asyncio.ensure_future(wait)
    try:
        await asyncio.wait({waiter}, timeout=COMMIT_WAIT)
    finally:
        waiter.cancel()
    if waiter.done() and not waiter.cancelled():
        waiter.result()


async def coalesced(
    source: AsyncIterator[Any], committed: Callable[[], Awaitable[object]]
) -> AsyncGenerator[list[Any], None]:
    """Batches of chunks from `source`, each merged; after handing out a batch, waits (bounded)
    for `committed()` — the batch's events are durable and shown — before taking the next.
    A failure of the stream is raised after every chunk that came before it."""
    reader = _Reader(source)
    try:
        while True:
            while not reader.buffer and not reader.done:
                reader.arrived.clear()
                reader.waiting = True
                try:
                    await reader.arrived.wait()
                finally:
                    reader.waiting = False
            if not reader.buffer:
                break
            yield merge(reader.take())
            if reader.buffer or not reader.done:
                await _bounded(committed())
        if reader.failure is not None:
            raise reader.failure
    finally:
        await reader.close()
