"""In-process fan-out of stream frames (docs/architecture.md, "Stream frames").

Two channels, `mux` and `host`. Every subscriber owns a bounded queue; a subscriber that falls
too far behind gets one `stream/error` frame and is closed (it reconnects and rebuilds), so a
slow client never stalls the others. Items are `(rpc_id, frame)`: answerable frames keep their
stable rpcId, pushes get a fresh one per emission.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Literal

from pydantic import BaseModel

from contract.errors import rpc_error
from contract.frames import ANSWERABLE_FRAMES, StreamError
from contract.rpc import new_rpc_id

log = logging.getLogger(__name__)

Channel = Literal["mux", "host"]
Item = tuple[str, BaseModel]
"""(rpcId, frame model)."""

DEFAULT_LIMIT = 2000


def frame_type(frame: BaseModel) -> str:
    return str(getattr(frame, "type", ""))


class Subscription:
    """One subscriber's bounded queue; iterate it with `async for rpc_id, frame in sub`."""

    def __init__(self, bus: Bus, channel: Channel, limit: int) -> None:
        self._bus = bus
        self.channel: Channel = channel
        self._limit = limit
        self._queue: asyncio.Queue[Item | None] = asyncio.Queue()
        self.closed = False
        self.overflowed = False

    def _offer(self, item: Item) -> None:
        if self.closed:
            return
        if self._queue.qsize() >= self._limit:
            self._overflow()
            return
        self._queue.put_nowait(item)

    def _overflow(self) -> None:
        self.overflowed = True
        while not self._queue.empty():
            self._queue.get_nowait()
        error = rpc_error("internal", "subscriber fell behind; reconnect and rebuild")
        self._queue.put_nowait((new_rpc_id(), StreamError(error=error)))
        self.close()

    def close(self) -> None:
        """Stop receiving; the iterator ends after the frames already queued."""
        if self.closed:
            return
        self.closed = True
        self._queue.put_nowait(None)
        self._bus._drop(self)

    def pending(self) -> int:
        return self._queue.qsize()

    async def get(self) -> Item | None:
        """The next item, or None once the subscription is closed and drained."""
        item = await self._queue.get()
        if item is None:
            self._queue.put_nowait(None)  # keep later get() calls ending too
        return item

    def get_nowait(self) -> Item | None:
        """The next queued item without waiting (None when nothing is queued or closed)."""
        if self._queue.empty():
            return None
        item = self._queue.get_nowait()
        if item is None:
            self._queue.put_nowait(None)
        return item

    def __aiter__(self) -> AsyncIterator[Item]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Item]:
        while True:
            item = await self.get()
            if item is None:
                return
            yield item


class Bus:
    """Fan-out of frames to subscribers of two channels, never blocking the publisher."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._limit = limit
        self._subs: dict[Channel, list[Subscription]] = {"mux": [], "host": []}

    def subscribe(
        self,
        channel: Channel,
        snapshot: Callable[[], Iterable[Item]] | None = None,
        limit: int | None = None,
    ) -> Subscription:
        """Register a subscriber; `snapshot()` frames are queued first, then live ones.

        Runs synchronously on the event loop, so no frame can be published between the
        snapshot and the registration: no gap, no duplicate.
        """
        sub = Subscription(self, channel, limit or self._limit)
        if snapshot is not None:
            for item in snapshot():
                sub._offer(item)
        if not sub.closed:
            self._subs[channel].append(sub)
        return sub

    def publish(self, channel: Channel, frame: BaseModel, rpc_id: str | None = None) -> str:
        """Send a frame to every subscriber of `channel`; returns the rpcId used.

        Answerable frames must pass their stable `rpc_id`; pushes get a fresh one.
        """
        if rpc_id is None:
            if frame_type(frame) in ANSWERABLE_FRAMES:
                raise ValueError("answerable frames need their stable rpcId")
            rpc_id = new_rpc_id()
        for sub in list(self._subs[channel]):
            sub._offer((rpc_id, frame))
        return rpc_id

    def subscribers(self, channel: Channel) -> int:
        return len(self._subs[channel])

    def close_all(self) -> None:
        for channel in ("mux", "host"):
            for sub in list(self._subs[channel]):
                sub.close()

    def _drop(self, sub: Subscription) -> None:
        subs = self._subs[sub.channel]
        if sub in subs:
            subs.remove(sub)


def push(frame: BaseModel) -> Item:
    """A push item for a snapshot (fresh rpcId)."""
    return (new_rpc_id(), frame)
