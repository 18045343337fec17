"""Turn slots: at most N agent loops run turns at once; the rest wait in one FIFO queue
(docs/architecture.md, "Agents"; docs/decisions.md, "Parallel sessions and attention").

A top-level session's turn takes a slot before it opens and gives it back when it closes. A turn
that waits on an approval or a question keeps its slot (simple and predictable: a person who
answers sees the turn continue at once). A holder that should stop holding (an automation's run
paused after waiting too long on an approval) calls `Slot.release()` and later `take()` again: it
queues behind whoever is waiting then, like any other turn.

`limit` is read whenever a slot frees or a waiter arrives, so a changed setting takes effect at
the next grant (`settle()` grants at once when it was raised). Cancelling a waiting `take()`
withdraws it from the queue (Stop on a waiting session).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable

Changed = Callable[[str, "int | None"], None]
"""(session id, how many turns wait ahead of it; None: it no longer waits)."""


class Slot:
    """One granted slot; `release()` is idempotent."""

    def __init__(self, slots: TurnSlots, session_id: str) -> None:
        self._slots = slots
        self.session_id = session_id
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self._slots._freed()


class TurnSlots:
    def __init__(self, limit: Callable[[], int], changed: Changed) -> None:
        self._limit = limit
        self._changed = changed
        self._holding = 0
        self._waiting: OrderedDict[int, tuple[str, asyncio.Future[None]]] = OrderedDict()
        self._tickets = 0

    @property
    def holding(self) -> int:
        """Slots granted and not yet released."""
        return self._holding

    def waiting(self) -> list[str]:
        """Session ids waiting for a slot, first in line first."""
        return [sid for sid, _ in self._waiting.values()]

    def ahead(self, session_id: str) -> int | None:
        """How many waiters stand before this session's turn (None: it does not wait)."""
        for index, (sid, _) in enumerate(self._waiting.values()):
            if sid == session_id:
                return index
        return None

    async def take(self, session_id: str) -> Slot:
        """A slot for one turn: at once when one is free and nobody waits, else in FIFO order.
        Cancelling the caller withdraws the request (and frees a slot granted in between)."""
        if not self._waiting and self._holding < self._cap():
            self._holding += 1
            return Slot(self, session_id)
        self._tickets += 1
        ticket = self._tickets
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[ticket] = (session_id, future)
        self._announce(start=len(self._waiting) - 1)
        try:
            await future
        except asyncio.CancelledError:
            if ticket in self._waiting:
                index = list(self._waiting).index(ticket)
                del self._waiting[ticket]
                self._changed(session_id, None)
                self._announce(start=index)
            elif future.done() and not future.cancelled():
                self._freed()  # granted as the cancel arrived: give it on
            raise
        return Slot(self, session_id)

    def settle(self) -> None:
        """Grant waiting turns while slots are free (after the limit was raised)."""
        granted = False
        while self._waiting and self._holding < self._cap():
            _, (session_id, future) = self._waiting.popitem(last=False)
            self._holding += 1
            future.set_result(None)
            self._changed(session_id, None)
            granted = True
        if granted:
            self._announce(start=0)

    def _freed(self) -> None:
        self._holding -= 1
        self.settle()

    def _cap(self) -> int:
        return max(1, self._limit())

    def _announce(self, start: int) -> None:
        """Tell every waiter from `start` on its new place in line."""
        for index, (session_id, _) in enumerate(list(self._waiting.values())):
            if index >= start:
                self._changed(session_id, index)
