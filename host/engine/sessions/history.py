"""`session.history`: a page of raw events, repaired in memory for a session that died mid-turn.

Paging counts messages backwards (docs/architecture.md, "History paging"); the store does the
counting (`host.engine.store.paging`). A cold session whose last turn never ended gets the repair events
appended to its tail page without writing anything, so reading never changes a session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contract.events import SessionEvent, TurnEndReason
from contract.sessions import Projections
from host.engine.sessions.repair import Unsaved, crash_repair
from host.engine.store import Page, SessionHeader, Store


@dataclass
class HistoryPage:
    """A page as stored (`rows`: seq, type, JSON) plus the repair events never written (`extra`)."""

    rows: list[tuple[int, str, bytes]]
    extra: list[SessionEvent]
    has_more: bool
    projections: Projections | None

    @property
    def events(self) -> list[SessionEvent]:
        """Every event of the page as a model (validated from the rows)."""
        return Page(self.rows, self.has_more, 0).events + self.extra


async def history_page(
    store: Store,
    session_id: str,
    cold: SessionHeader | None,
    values: dict[str, Any],
    before_seq: int | None,
    max_messages: int,
    reason: TurnEndReason | None = None,
    unsaved: Unsaved | None = None,
) -> HistoryPage:
    """`cold` is the header of a session with no agent attached (None when attached: its log is
    whole). The tail page (`before_seq` None) carries the projections (`values`). `reason` ends
    a repaired turn instead of `interrupted` (a turn a store failure cut short)."""
    page = await store.page(session_id, before_seq, max_messages)
    extra: list[SessionEvent] = []
    if cold is not None and (before_seq is None or before_seq > cold.last_seq):
        repair = await crash_repair(store, cold, reason, unsaved)
        extra = [e for e in repair if before_seq is None or e.seq < before_seq]
    projections = None
    if before_seq is None:
        as_of = extra[-1].seq if extra else page.rows[-1][0] if page.rows else -1
        projections = Projections(as_of_seq=as_of, values=values)
    return HistoryPage(page.rows, extra, page.has_more, projections)
