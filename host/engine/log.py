"""The live log of an attached session: assigns seqs and times, persists, publishes.

Every append happens on the event loop: the seq is assigned, the store write is queued (no disk
wait) and the `session/event` frame is published in one synchronous step, so mux subscribers see
exactly the persisted order with no gap.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from contract.events import SessionEvent
from contract.frames import SessionEventFrame, SessionProjection
from host.engine.bus import Bus
from host.engine.store import SessionHeader, Store


def now_ms() -> int:
    return int(time.time() * 1000)


class SessionLog:
    """Append-only event log of one attached session."""

    def __init__(self, header: SessionHeader, store: Store, bus: Bus) -> None:
        self.session_id = header.id
        self.header = header
        self._store = store
        self._bus = bus
        self.last_seq = header.last_seq
        self.last_time = 0
        self.title = header.title
        self.title_source = header.title_source
        self.model: dict[str, Any] | None = header.model

    def append(
        self,
        etype: str,
        data: dict[str, Any],
        *,
        source_event_seqs: list[int] | None = None,
        surface_op: Any = None,
    ) -> SessionEvent:
        """Append one event now (time = now, never earlier than the previous event)."""
        stamp = max(now_ms(), self.last_time)
        event = SessionEvent(
            type=etype,
            seq=self.last_seq + 1,
            time=stamp,
            data=data,
            source_event_seqs=source_event_seqs,
            surface_op=surface_op,
        )
        self.extend([event])
        return event

    def extend(self, events: Sequence[SessionEvent]) -> None:
        """Append ready-made events (e.g. crash repair, which keeps its own times)."""
        if not events:
            return
        self._store.append(self.session_id, events)
        for event in events:
            self.last_seq = event.seq
            self.last_time = max(self.last_time, event.time)
            self._bus.publish("mux", SessionEventFrame(session_id=self.session_id, event=event))
            self._observe(event)

    def _observe(self, event: SessionEvent) -> None:
        if event.type == "session/title":
            kind = (event.data.get("source") or {}).get("kind")
            if kind == "user" or self.title_source != "user":
                self.title = event.data.get("title")
                self.title_source = kind
                self.project("title", self.title, event.seq)
        elif event.type == "request/header":
            self.model = {
                k: event.data[k] for k in ("provider", "model", "reasoningEffort") if k in event.data
            }

    def project(self, key: str, value: Any, seq: int) -> None:
        self._bus.publish("mux", SessionProjection(session_id=self.session_id, key=key, value=value, seq=seq))

    def projections(self) -> dict[str, Any]:
        return {"title": self.title} if self.title is not None else {}
