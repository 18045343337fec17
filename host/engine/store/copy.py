"""Thread-side bulk operations: fork copies, export reads and import writes."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from contract.content import AttachmentRef
from host.engine.store import blobs
from host.engine.store.base import SessionHeader
from host.engine.store.named import named_row
from host.engine.store.schema import insert_header


def fork_anchor(conn: sqlite3.Connection, session_id: str, at_seq: int | None) -> int | None:
    """The first turn/end at or after `at_seq`; omitted or past the end: the last one."""
    last = conn.execute("SELECT MAX(seq) FROM events WHERE session_id = ?", (session_id,)).fetchone()[0]
    if last is None:
        return None
    if at_seq is None or at_seq > last:
        row = conn.execute(
            "SELECT MAX(end_seq) FROM turns WHERE session_id = ? AND end_seq IS NOT NULL", (session_id,)
        ).fetchone()
        return None if row[0] is None else int(row[0])
    row = conn.execute(
        "SELECT MIN(end_seq) FROM turns WHERE session_id = ? AND end_seq >= ?", (session_id, at_seq)
    ).fetchone()
    return None if row[0] is None else int(row[0])


def _latest(conn: sqlite3.Connection, session_id: str, etype: str, through: int) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT json FROM events WHERE session_id = ? AND type = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
        (session_id, etype, through),
    ).fetchone()
    return None if row is None else dict(json.loads(row[0]).get("data") or {})


def fork_copy(conn: sqlite3.Connection, source: str, child: SessionHeader, through: int) -> SessionHeader:
    """Copy events 0..through (and their side rows) into the new child session."""
    title = _latest(conn, source, "session/title", through)
    if title is not None:
        child.title = title.get("title")
        child.title_source = (title.get("source") or {}).get("kind")
    model = _latest(conn, source, "request/header", through)
    if model is not None:
        child.model = {k: model[k] for k in ("provider", "model", "reasoningEffort") if k in model}
    anchor_time = conn.execute(
        "SELECT time FROM events WHERE session_id = ? AND seq = ?", (source, through)
    ).fetchone()
    child.last_activity = None if anchor_time is None else int(anchor_time[0])
    child.blank = (
        conn.execute(
            "SELECT 1 FROM turns WHERE session_id = ? AND start_seq <= ? LIMIT 1", (source, through)
        ).fetchone()
        is None
    )
    child.seed_length = through + 1
    insert_header(conn, child)
    args = (child.id, source, through)
    conn.execute(
        "INSERT INTO events (session_id, seq, type, time, json)"
        " SELECT ?, seq, type, time, json FROM events WHERE session_id = ? AND seq <= ? ORDER BY seq",
        args,
    )
    conn.execute(
        "INSERT INTO boundaries (session_id, seq, cut)"
        " SELECT ?, seq, cut FROM boundaries WHERE session_id = ? AND seq <= ?",
        args,
    )
    conn.execute(
        "INSERT INTO turns (session_id, start_seq, turn, end_seq)"
        " SELECT ?, start_seq, turn, end_seq FROM turns WHERE session_id = ? AND start_seq <= ?",
        args,
    )
    conn.execute(
        "INSERT INTO session_attachments (session_id, attachment_id, seq)"
        " SELECT ?, attachment_id, seq FROM session_attachments WHERE session_id = ? AND seq <= ?",
        args,
    )
    first = conn.execute("SELECT COALESCE(MAX(id), 0) FROM message_text").fetchone()[0]
    conn.execute(
        "INSERT INTO message_text (session_id, seq, text)"
        " SELECT ?, seq, text FROM message_text WHERE session_id = ? AND seq <= ? ORDER BY seq",
        args,
    )
    conn.execute("INSERT INTO search (rowid, text) SELECT id, text FROM message_text WHERE id > ?", (first,))
    blobs.copy_checkpoints(conn, source, child.id)
    child.last_seq = through
    return child


def referenced_attachments(conn: sqlite3.Connection, session_id: str) -> list[str]:
    rows = conn.execute(
        "SELECT attachment_id FROM session_attachments WHERE session_id = ? ORDER BY seq, attachment_id",
        (session_id,),
    ).fetchall()
    return [r[0] for r in rows]


def read_attachment(
    conn: sqlite3.Connection, attachment_id: str, session_id: str | None = None
) -> tuple[AttachmentRef, bytes] | None:
    """The blob, optionally only when `session_id` references it."""
    if session_id is not None:
        ref = conn.execute(
            "SELECT 1 FROM session_attachments WHERE session_id = ? AND attachment_id = ?",
            (session_id, attachment_id),
        ).fetchone()
        if ref is None:
            return None
    row = named_row(
        conn.execute(
            "SELECT media_type, bytes, width, height, data FROM attachments WHERE id = ?", (attachment_id,)
        )
    )
    if row is None:
        return None
    ref_model = AttachmentRef(
        attachment_id=attachment_id,
        media_type=row.media_type,
        bytes=row.bytes,
        width=row.width,
        height=row.height,
    )
    return ref_model, bytes(row.data)


def write_attachment(conn: sqlite3.Connection, ref: AttachmentRef, data: bytes) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO attachments (id, media_type, bytes, width, height, data)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (ref.attachment_id, ref.media_type, ref.bytes, ref.width, ref.height, data),
    )


def finish_import(conn: sqlite3.Connection, header: SessionHeader) -> None:
    """Restore the imported header's own values over what replaying events derived."""
    conn.execute(
        "UPDATE sessions SET title = ?, title_source = ?, last_activity = ?, blank = ?,"
        " seed_length = ?, created_at = ? WHERE id = ?",
        (
            header.title,
            header.title_source,
            header.last_activity,
            1 if header.blank else 0,
            header.seed_length,
            header.created_at,
            header.id,
        ),
    )
