"""The journal of an attached session: its live event log. Assigns seqs and times, persists,
publishes. (`log` in this code base always means a logger; the session's log is its journal.)

Every append happens on the event loop: the seq is assigned, the store write is queued (no disk
wait) and the `session/event` frame is published in one synchronous step, so mux subscribers see
exactly the persisted order with no gap.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from contract.events import RequestHeader, SessionEvent, SessionTitle
from contract.frames import SessionEventFrame, SessionProjection
from host.engine.bus import Bus
from host.engine.events import NewEvent
from host.engine.store import SessionHeader, Store

MODEL_FIELDS = {"provider", "model", "reasoning_effort"}
"""The part of a `request/header` that says which model answered."""


def now_ms() -> int:
    return int(time.time() * 1000)


class Journal:
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

    def append(self, new: NewEvent[Any]) -> SessionEvent:
        """Append one event now (time = now, never earlier than the previous event)."""
        event = new.stamp(self.last_seq + 1, max(now_ms(), self.last_time))
        self.extend([event])
        return event

    def append_all(self, news: Sequence[NewEvent[Any]]) -> list[SessionEvent]:
        """Append several events as one write: a crash keeps all of them or none (e.g. an
        inbox claim and the message it delivers)."""
        time = max(now_ms(), self.last_time)
        stamped = [new.stamp(self.last_seq + 1 + i, time) for i, new in enumerate(news)]
        self.extend(stamped)
        return stamped

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
            titled = SessionTitle.model_validate(event.data)
            if titled.source.kind == "user" or self.title_source != "user":
                self.title = titled.title
                self.title_source = titled.source.kind
                self.project("title", self.title, event.seq)
        elif event.type == "request/header":
            header = RequestHeader.model_validate(event.data)
            self.model = header.model_dump(by_alias=True, exclude_none=True, include=MODEL_FIELDS)

    def project(self, key: str, value: Any, seq: int) -> None:
        self._bus.publish("mux", SessionProjection(session_id=self.session_id, key=key, value=value, seq=seq))

    def projections(self) -> dict[str, Any]:
        return {"title": self.title} if self.title is not None else {}
