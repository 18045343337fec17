"""Envelope observers: every wire message a client sends or receives, in per-tick batches.

Batching keeps a busy stream from calling observers once per frame; isolation keeps one
broken observer (a logger, a devtools panel) from starving the others.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

log = logging.getLogger("host.fetch")

EnvelopeObserver = Callable[[Sequence[Any]], None]
"""Called with a batch of messages (`ClientRequest`, `ServerResponse`, `ServerRequest`,
`ClientResponse` models), in the order they were sent or received."""


class EnvelopeHub:
    """Collects messages and hands them to every observer once per event-loop tick."""

    def __init__(self) -> None:
        self._observers: list[EnvelopeObserver] = []
        self._pending: list[Any] = []
        self._scheduled = False

    def subscribe(self, observer: EnvelopeObserver) -> Callable[[], None]:
        """Start observing; the returned function stops it."""
        self._observers.append(observer)

        def unsubscribe() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return unsubscribe

    def emit(self, message: Any) -> None:
        """Queue `message` for the next flush (call from the event loop)."""
        if not self._observers:
            return
        self._pending.append(message)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        batch, self._pending, self._scheduled = tuple(self._pending), [], False
        for observer in list(self._observers):
            try:
                observer(batch)
            except Exception:
                log.exception("envelope observer %r failed; the others still get the batch", observer)
