"""In-process fan-out of stream frames to subscribers of two channels, `mux` and `host`.

Durable before visible: a frame about a session event is published with the store ticket of
that event's write and held back until the store reports the ticket committed; a frame whose
write failed is never shown. Every other frame keeps its place behind held ones, so the order
of frames is exactly the order of publication.

Fan-out: each channel keeps one shared log of released frames and every subscriber a cursor into
it, so a frame costs one slot however many subscribers read it (and is encoded once by the
carrier). A subscriber is cut off (one `stream/error`, then closed; it reconnects and rebuilds)
only when it has not read for `stall_after` seconds while frames waited for it, or when it is
more than `limit` frames behind — a bound on memory far above any burst (docs/decisions.md
"Reliability"). Items are `(rpc_id, frame)`: answerable frames keep their stable rpcId, pushes
get a fresh one per emission.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import deque
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

DEFAULT_LIMIT = 50_000
"""Frames a subscriber may be behind before it is cut off (a memory bound, not a burst size)."""
STALL_AFTER = 20.0
"""Seconds a subscriber may leave waiting frames unread before it is cut off."""


_PUSH_PREFIX = new_rpc_id()
_push_numbers = itertools.count(1)


def push_id() -> str:
    """A fresh rpcId for a push: this host's random prefix and a counter. Unique like a UUIDv4
    per frame, without drawing random bytes for every streamed delta (a few per cent of the
    host's loop with ten sessions streaming; docs/decisions/many-sessions-streaming.md)."""
    return f"{_PUSH_PREFIX}-{next(_push_numbers)}"


def frame_type(frame: BaseModel) -> str:
    return str(getattr(frame, "type", ""))


class _Log:
    """One channel's released frames, kept from the slowest live cursor to the head."""

    def __init__(self) -> None:
        self.entries: deque[Item] = deque()
        self.base = 0
        """Position of `entries[0]`."""
        self.subs: list[Subscription] = []
        self.weighed = 0
        """The weight of every entry ever released (`publish(weight=)`: terminal output bytes)."""
        self.marks: deque[int] = deque()
        """Per entry, `weighed` before it (so the weight from any position to the head is one
        subtraction)."""

    @property
    def head(self) -> int:
        return self.base + len(self.entries)

    def between(self, start: int, end: int) -> list[Item]:
        """Entries at positions start ≤ p < end (one pass over the deque)."""
        return list(itertools.islice(self.entries, start - self.base, end - self.base))

    def trim(self) -> None:
        keep = min((s._cursor for s in self.subs), default=self.head)
        while self.base < keep:
            self.entries.popleft()
            self.marks.popleft()
            self.base += 1

    def unread_weight(self) -> int:
        """The weight of the entries the slowest subscriber has not taken yet."""
        slowest = min((s._cursor for s in self.subs), default=self.head)
        return self.weighed - self.marks[slowest - self.base] if slowest < self.head else 0


class Subscription:
    """One subscriber's view of a channel; iterate with `async for rpc_id, frame in sub`."""

    def __init__(self, bus: Bus, channel: Channel, limit: int, counted: bool = True) -> None:
        self._bus = bus
        self.counted = counted
        """Whether `Bus.subscribers` counts it: False for the host's own followers."""
        self.channel: Channel = channel
        self._limit = limit
        self._log = bus._logs[channel]
        self._private: deque[Item] = deque()
        """Frames of this subscriber only: its snapshot, then (when cut off) the stream/error."""
        self._cursor = self._log.head
        self._since = time.monotonic()
        """When it last read, or last had nothing to read."""
        self._waiter: asyncio.Future[None] | None = None
        self.closed = False
        self.overflowed = False

    # ---- reading ---------------------------------------------------------------------------

    def pending(self) -> int:
        live = 0 if self.closed else self._log.head - self._cursor
        return len(self._private) + live

    def take(self, limit: int = 1 << 30) -> list[Item]:
        """Up to `limit` frames ready now, without waiting (a batch for one write)."""
        out: list[Item] = []
        while self._private and len(out) < limit:
            out.append(self._private.popleft())
        if not self.closed:
            log_ = self._log
            end = min(log_.head, self._cursor + (limit - len(out)))
            if end > self._cursor:
                out.extend(log_.between(self._cursor, end))
                self._cursor = end
            self._since = time.monotonic()
        return out

    async def batch(self, limit: int = 1 << 30) -> list[Item]:
        """The frames ready now (at least one, waiting if needed); [] once closed and drained."""
        while True:
            items = self.take(limit)
            if items or (self.closed and not self._private):
                return items
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    async def get(self) -> Item | None:
        """The next item, or None once the subscription is closed and drained."""
        items = await self.batch(1)
        return items[0] if items else None

    def get_nowait(self) -> Item | None:
        """The next ready item without waiting (None when nothing is ready or closed)."""
        items = self.take(1)
        return items[0] if items else None

    def __aiter__(self) -> AsyncIterator[Item]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Item]:
        while True:
            item = await self.get()
            if item is None:
                return
            yield item

    # ---- the bus's side ---------------------------------------------------------------------

    def _offer_private(self, item: Item) -> None:
        if not self.closed:
            self._private.append(item)
            self._wake()

    def _check(self, now: float, lagged_before: bool) -> None:
        """After new frames: wake the reader, or cut it off if it is stalled or too far behind."""
        lag = self._log.head - self._cursor
        if not lagged_before:
            self._since = now  # it had nothing to read until now: not stalled
        stalled = lag > 0 and now - self._since > self._bus.stall_after
        if lag > self._limit or stalled:
            self._overflow("stalled" if stalled else "too far behind")
        else:
            self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _overflow(self, why: str) -> None:
        log.info("cutting off a %s subscriber (%s, %d frames behind)", self.channel, why, self.pending())
        self.overflowed = True
        self._private.clear()
        self._cursor = self._log.head
        error = rpc_error("internal", "subscriber fell behind; reconnect and rebuild")
        self._private.append((new_rpc_id(), StreamError(error=error)))
        self._detach()

    def close(self) -> None:
        """Stop receiving; the iterator ends after the frames already queued for it."""
        if self.closed:
            return
        self._private.extend(self._log.between(self._cursor, self._log.head))
        self._cursor = self._log.head
        self._detach()

    def _detach(self) -> None:
        self.closed = True
        if self in self._log.subs:
            self._log.subs.remove(self)
            self._log.trim()
        self._wake()


class Bus:
    """Ordered, durable-gated fan-out of frames; publishing never blocks or waits."""

    def __init__(self, limit: int = DEFAULT_LIMIT, stall_after: float = STALL_AFTER) -> None:
        self._limit = limit
        self.stall_after = stall_after
        self._logs: dict[Channel, _Log] = {"mux": _Log(), "host": _Log()}
        self._held: deque[tuple[int, Channel, Item, Callable[[], None] | None, int]] = deque()
        """Frames waiting for their store ticket (0 = none), in publication order."""
        self._settled = 0
        self._dropped: set[int] = set()
        self.closed = False
        """Set by `close_all()`: every stream has ended and new subscriptions end at once."""
        self.gate = True
        """False shows frames before their event is durable: only for measuring what the gate
        costs (bench/durability_bench.py), never in the product."""

    def subscribe(
        self,
        channel: Channel,
        snapshot: Callable[[], Iterable[Item]] | None = None,
        limit: int | None = None,
        *,
        counted: bool = True,
    ) -> Subscription:
        """Register a subscriber; `snapshot()` frames come first, then every frame released later.
        `counted=False`: a follower inside the host, which `subscribers` leaves out (it answers
        no prompt).

        Runs synchronously on the event loop, so no frame can be released between the snapshot
        and the registration: no gap, no duplicate.
        """
        sub = Subscription(self, channel, limit or self._limit, counted)
        if self.closed:
            sub.closed = True
            return sub
        if snapshot is not None:
            for item in snapshot():
                sub._offer_private(item)
        self._logs[channel].subs.append(sub)
        return sub

    def publish(
        self,
        channel: Channel,
        frame: BaseModel,
        rpc_id: str | None = None,
        *,
        after: int | None = None,
        then: Callable[[], None] | None = None,
        weight: int = 0,
    ) -> str:
        """Queue a frame for every subscriber of `channel`; returns the rpcId used.

        `after` is the store ticket the frame waits for (its event's write); `then` runs when the
        frame is released. Answerable frames must pass their stable `rpc_id`; pushes get a fresh one.
        `weight` counts toward `unread_weight` until every subscriber took the frame.
        """
        if rpc_id is None:
            if frame_type(frame) in ANSWERABLE_FRAMES:
                raise ValueError("answerable frames need their stable rpcId")
            rpc_id = push_id()
        ticket = (after or 0) if self.gate else 0
        if not self._held and ticket <= self._settled:
            if then is not None:
                then()
            self._deliver(self._logs[channel], [(rpc_id, frame)], [weight])
        else:
            self._held.append((ticket, channel, (rpc_id, frame), then, weight))
            if ticket <= self._settled:
                self._release()
        return rpc_id

    def settle(self, through: int, dropped: Iterable[int] = ()) -> None:
        """The store settled every ticket ≤ `through`; frames of `dropped` ones are discarded."""
        self._dropped.update(dropped)
        self._settled = max(self._settled, through)
        self._release()

    def held(self) -> int:
        """Frames waiting for the store (for tests and diagnostics)."""
        return len(self._held)

    def _release(self) -> None:
        ready: dict[Channel, tuple[list[Item], list[int]]] = {}
        while self._held:
            ticket, channel, item, then, weight = self._held[0]
            if ticket > self._settled:
                break
            self._held.popleft()
            if ticket in self._dropped:
                continue
            items, weights = ready.setdefault(channel, ([], []))
            items.append(item)
            weights.append(weight)
            if then is not None:
                then()
        self._dropped.clear()  # held tickets never decrease: every dropped one was just seen
        for channel, (items, weights) in ready.items():
            self._deliver(self._logs[channel], items, weights)

    def _deliver(self, log_: _Log, items: list[Item], weights: list[int]) -> None:
        lagged = [s._cursor < log_.head for s in log_.subs]
        log_.entries.extend(items)
        for weight in weights:
            log_.marks.append(log_.weighed)
            log_.weighed += weight
        now = time.monotonic()
        for sub, was_behind in zip(list(log_.subs), lagged, strict=True):
            sub._check(now, was_behind)
        log_.trim()

    def unread_weight(self, channel: Channel) -> int:
        """The weight (`publish(weight=)`) of the frames of `channel` some subscriber has not
        taken yet: what a slow client holds back (terminal flow control, docs/decisions.md
        "Terminal and files")."""
        return self._logs[channel].unread_weight()

    def subscribers(self, channel: Channel) -> int:
        """The streams open on `channel` for clients (a window could answer on them)."""
        return sum(1 for sub in self._logs[channel].subs if sub.counted)

    def close_all(self) -> None:
        """End every stream (shutdown): readers get what is queued for them, then the end."""
        self.closed = True
        for log_ in self._logs.values():
            for sub in list(log_.subs):
                sub.close()


def push(frame: BaseModel) -> Item:
    """A push item for a snapshot (fresh rpcId)."""
    return (push_id(), frame)
