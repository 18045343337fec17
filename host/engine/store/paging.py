"""History paging on SQLite (docs/architecture.md, "History paging").

Count backwards only `user/message` and `assistant/message` events appended to the surface; the
cut is the smallest of the `maxMessages`-th counted message's seq and its `sourceEventSeqs`; the
page is every event with `seq ≥ cut` (and `< beforeSeq`); `hasMore = cut > 0`. With fewer
messages the whole window is returned and `hasMore = false`.

`page_bounds` runs on SQLite against the `boundaries` side table (one row per counted message,
its cut precomputed when the message was appended), so a page costs O(page), never O(session).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

BOUNDARY_SQL = (
    "SELECT MIN(cut), COUNT(*) FROM ("
    " SELECT cut FROM boundaries WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?)"
)
PAGE_SQL = (
    "SELECT seq, type, CAST(json AS BLOB) FROM events"
    " WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq"
)
NO_BOUND = 1 << 62


@dataclass(frozen=True)
class Bounds:
    cut: int
    end: int
    """Exclusive upper bound (beforeSeq, or past the last seq)."""
    has_more: bool


def page_bounds(
    conn: sqlite3.Connection, session_id: str, before_seq: int | None, max_messages: int
) -> Bounds:
    """The page window: events with cut ≤ seq < end."""
    if max_messages <= 0:
        raise ValueError("max_messages must be positive")
    end = NO_BOUND if before_seq is None else before_seq
    low, count = conn.execute(BOUNDARY_SQL, (session_id, end, max_messages)).fetchone()
    if count < max_messages or low is None:
        return Bounds(cut=0, end=end, has_more=False)
    cut = int(low)
    return Bounds(cut=cut, end=end, has_more=cut > 0)


def page_rows(
    conn: sqlite3.Connection, session_id: str, before_seq: int | None, max_messages: int
) -> tuple[list[tuple[int, str, bytes]], Bounds]:
    """The page's events as (seq, type, stored JSON as UTF-8 bytes), in seq order, and its
    bounds. Bytes: answers splice them as they are (host/engine/sessions/history_wire.py)."""
    bounds = page_bounds(conn, session_id, before_seq, max_messages)
    rows = conn.execute(PAGE_SQL, (session_id, bounds.cut, bounds.end)).fetchall()
    return rows, bounds
