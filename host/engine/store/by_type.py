"""Reads of a session's events by type, through the partial `events_by_type` index.

The events table is keyed by (session, seq) and holds each event's JSON, so finding the few
events of one type (the newest `plan/mode`, the inbox records) by scanning read the whole
session: ~40 ms for 100,000 events on every history tail page. The index covers every event
but the streamed `assistant/chunk` deltas (the bulk of a log, never looked up by type); a query
repeats its condition (`NOT_CHUNK`) so SQLite may use it (docs/decisions.md, "Performance and
packaging").
"""

from __future__ import annotations

import sqlite3

from host.engine.store.named import named_row

CHUNK = "assistant/chunk"
NOT_CHUNK = f"type != '{CHUNK}'"
"""The index's own condition (schema.DDL), word for word: SQLite uses a partial index only for a
query whose WHERE contains it."""


def _from_where(types: tuple[str, ...]) -> str:
    """FROM and WHERE: through the index unless deltas are asked for (without statistics,
    SQLite's planner prefers the primary key, whose order matches ORDER BY seq: hence INDEXED BY)."""
    marks = ",".join("?" * len(types))
    clause = f"session_id = ? AND type IN ({marks})"
    if CHUNK in types:
        return f"FROM events WHERE {clause}"
    return f"FROM events INDEXED BY events_by_type WHERE {clause} AND {NOT_CHUNK}"


def rows_of_types(conn: sqlite3.Connection, session_id: str, types: tuple[str, ...]) -> list[str]:
    """The JSON of every event of `types`, in seq order."""
    if not types:
        return []
    query = f"SELECT json {_from_where(types)} ORDER BY seq"
    return [row[0] for row in conn.execute(query, (session_id, *types))]


def latest_row_of_types(conn: sqlite3.Connection, session_id: str, types: tuple[str, ...]) -> str | None:
    """The JSON of the newest event of `types` (one index seek per type), or None."""
    best: tuple[int, str] | None = None
    for kind in dict.fromkeys(types):
        row = named_row(
            conn.execute(
                f"SELECT seq, json {_from_where((kind,))} ORDER BY seq DESC LIMIT 1", (session_id, kind)
            )
        )
        if row is not None and (best is None or row.seq > best[0]):
            best = (row.seq, row.json)
    return None if best is None else best[1]
