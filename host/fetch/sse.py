"""Server-sent events on the host side: frame encoding and the quiet-stream heartbeat."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TypeVar

from host.fetch.connection import aclose_quietly

T = TypeVar("T")

HEARTBEAT = b": heartbeat\n\n"
"""A comment: clients ignore it, but it lets them tell a dead stream from a quiet one."""

HEARTBEAT_INTERVAL = 15.0

SSE_HEADERS = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
}
"""No caching, and no buffering by a reverse proxy (nginx honours `X-Accel-Buffering`)."""


def encode_event(event_id: int, data: bytes) -> bytes:
    """One SSE event. `data` must hold no line break (compact JSON never does)."""
    if b"\n" in data or b"\r" in data:
        raise ValueError("SSE data must be a single line")
    return b"id: %d\ndata: %s\n\n" % (event_id, data)


async def _next(iterator: AsyncIterator[T]) -> T:
    return await iterator.__anext__()


async def with_heartbeat(source: AsyncIterator[T], interval: float) -> AsyncGenerator[T | None, None]:
    """Yield `source`'s items, and `None` after each `interval` seconds without one.

    The pending `__anext__` runs in its own task so a heartbeat never cancels it; when this
    generator is closed or cancelled, that task is cancelled and `source` closed at once.
    """
    pending: asyncio.Future[T] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(_next(source))
            done, _ = await asyncio.wait({pending}, timeout=interval)
            if not done:
                yield None
                continue
            finished, pending = pending, None
            try:
                item = finished.result()
            except StopAsyncIteration:
                return
            yield item
    finally:
        if pending is not None:
            pending.cancel()
            await asyncio.gather(pending, return_exceptions=True)
        await aclose_quietly(source)
