"""File checkpoints: content-addressed blobs of what a file held before a turn changed it.

`file_blobs` keeps each content once (keyed by its SHA-256); `session_file_blobs` says which
session relies on which blob, so a fork keeps its parent's checkpoints and a deleted session
takes only the blobs no other session uses (docs/architecture.md, "Checkpoints and undo").
"""

from __future__ import annotations

import sqlite3

DDL = """
CREATE TABLE IF NOT EXISTS file_blobs (
    sha256 TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    data BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_file_blobs (
    session_id TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    PRIMARY KEY (session_id, sha256)
) WITHOUT ROWID;
"""


def write_blob(conn: sqlite3.Connection, session_id: str, sha256: str, data: bytes) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO file_blobs (sha256, size, data) VALUES (?, ?, ?)", (sha256, len(data), data)
    )
    conn.execute(
        "INSERT OR IGNORE INTO session_file_blobs (session_id, sha256) VALUES (?, ?)", (session_id, sha256)
    )


def read_blob(conn: sqlite3.Connection, session_id: str, sha256: str) -> bytes | None:
    """The content, only when `session_id` relies on it (a log cannot name another's blob)."""
    row = conn.execute(
        "SELECT b.data FROM file_blobs b JOIN session_file_blobs s ON s.sha256 = b.sha256"
        " WHERE s.session_id = ? AND b.sha256 = ?",
        (session_id, sha256),
    ).fetchone()
    return None if row is None else bytes(row[0])


def copy_refs(conn: sqlite3.Connection, source: str, child: str) -> None:
    """A fork relies on its parent's checkpoints (it shares the folder and the copied turns)."""
    conn.execute(
        "INSERT OR IGNORE INTO session_file_blobs (session_id, sha256)"
        " SELECT ?, sha256 FROM session_file_blobs WHERE session_id = ?",
        (child, source),
    )


def drop_refs(conn: sqlite3.Connection, session_id: str) -> int:
    """Forget a deleted session's checkpoints; returns how many blobs nobody uses any more."""
    shas = [
        r[0]
        for r in conn.execute("SELECT sha256 FROM session_file_blobs WHERE session_id = ?", (session_id,))
    ]
    conn.execute("DELETE FROM session_file_blobs WHERE session_id = ?", (session_id,))
    removed = 0
    for sha in shas:
        cur = conn.execute(
            "DELETE FROM file_blobs WHERE sha256 = ?"
            " AND NOT EXISTS (SELECT 1 FROM session_file_blobs WHERE sha256 = ?)",
            (sha, sha),
        )
        removed += cur.rowcount
    return removed
