"""The journal of an attached session: its live event log. Assigns seqs and times, persists,
publishes. (`log` in this code base always means a logger; the session's log is its journal.)

Every append happens on the event loop: the seq is assigned, the store write is queued (no disk
wait) and the `session/event` frame is handed to the bus with the write's ticket in one
synchronous step. The bus shows the frame only once the store has committed it (durable before
visible, docs/decisions.md), so mux subscribers see exactly the persisted order with no gap and
never an event a crash could take back.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from typing import Any

from contract.events import RequestHeader, SessionEvent, SessionTitle
from contract.frames import SessionEventFrame, SessionProjection
from host.engine.sessions.bus import Bus
from host.engine.sessions.events import NewEvent
from host.engine.sessions.tool_views import LiveViews
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
        self.visible_seq = header.last_seq
        """The last seq whose frame subscribers were shown (it is durable)."""
        self.detached = False
        """Set when a store failure cut this log off from the disk: appends go nowhere."""
        self.last_ticket = 0
        """The store ticket of the newest append (what a frame about it waits for)."""
        self._views = LiveViews()
        """Open calls, for the views of live `tool/call` / `tool/result` frames."""

    def detach(self) -> None:
        """Stop writing and publishing (the agent is abandoned; the store rewound the session)."""
        self.detached = True

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
        if self.detached:
            self.last_seq = events[-1].seq
            return
        ticket = self._store.append(self.session_id, events)
        self.last_ticket = ticket
        for event in events:
            self.last_seq = event.seq
            self.last_time = max(self.last_time, event.time)
            frame = SessionEventFrame(session_id=self.session_id, event=event, view=self._views.view(event))
            self._bus.publish("mux", frame, after=ticket, then=partial(self._shown, event.seq))
            self._observe(event, ticket)

    async def saved(self, seq: int) -> bool:
        """Wait (bounded) until the write of `seq` is settled: whether it is on disk (and shown).
        An RPC that reports an appended event (an accepted prompt) answers only after this."""
        await self._store.settled(self.last_ticket)  # its own writes, not the others' queued since
        return self.visible_seq >= seq

    def _shown(self, seq: int) -> None:
        self.visible_seq = max(self.visible_seq, seq)

    def _observe(self, event: SessionEvent, ticket: int) -> None:
        if event.type == "session/title":
            titled = SessionTitle.model_validate(event.data)
            if titled.source.kind == "user" or self.title_source != "user":
                self.title = titled.title
                self.title_source = titled.source.kind
                self.project("title", self.title, event.seq, after=ticket)
        elif event.type == "request/header":
            header = RequestHeader.model_validate(event.data)
            self.model = header.model_dump(by_alias=True, exclude_none=True, include=MODEL_FIELDS)

    def project(self, key: str, value: Any, seq: int, *, after: int | None = None) -> None:
        frame = SessionProjection(session_id=self.session_id, key=key, value=value, seq=seq)
        self._bus.publish("mux", frame, after=after)

    def projections(self) -> dict[str, Any]:
        return {"title": self.title} if self.title is not None else {}
