"""File checkpoints: what a file held before a turn first changed it, kept host-side.

`file_checkpoints` has one row per (session, turn, path): the content's SHA-256, or NULL when the
file did not exist. `file_blobs` keeps each content once, by its hash. A revert only trusts these
rows, never the log alone: a log can come from an archive and be forged (docs/threat-model.md), so
an imported session has nothing to revert. A fork gets its parent's rows for the turns it copied;
a deleted session takes its rows and every blob no other row uses
(docs/architecture.md, "Checkpoints and undo").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from host.engine.store.named import named_row

DDL = """
CREATE TABLE IF NOT EXISTS file_blobs (
    sha256 TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    data BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS file_checkpoints (
    session_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT,
    PRIMARY KEY (session_id, turn, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS file_checkpoints_sha ON file_checkpoints (sha256);
-- what a shell command (any step) changed: the earlier content is a blob of the workspace's
-- shadow repository (host/engine/files/snapshots/); `oid` NULL: the file did not exist
CREATE TABLE IF NOT EXISTS snapshot_checkpoints (
    session_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT,
    oid TEXT,
    repo TEXT NOT NULL,
    created INTEGER NOT NULL,
    PRIMARY KEY (session_id, turn, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS snapshot_checkpoints_age ON snapshot_checkpoints (repo, created);
-- the real path of the session's folder when a turn first changed a file in it: a revert
-- refuses to write through a folder that has since become (or moved behind) a symlink
CREATE TABLE IF NOT EXISTS checkpoint_roots (
    session_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    root TEXT NOT NULL,
    PRIMARY KEY (session_id, turn)
) WITHOUT ROWID;
"""


@dataclass(frozen=True)
class Checkpoint:
    sha256: str | None
    """None: the file did not exist."""
    data: bytes | None


def write_checkpoint(
    conn: sqlite3.Connection, session_id: str, turn: int, path: str, sha256: str | None, data: bytes | None
) -> None:
    """The first checkpoint of a (session, turn, path) wins."""
    if sha256 is not None and data is not None:
        conn.execute(
            "INSERT OR IGNORE INTO file_blobs (sha256, size, data) VALUES (?, ?, ?)",
            (sha256, len(data), data),
        )
    conn.execute(
        "INSERT OR IGNORE INTO file_checkpoints (session_id, turn, path, sha256) VALUES (?, ?, ?, ?)",
        (session_id, turn, path, sha256),
    )


def write_root(conn: sqlite3.Connection, session_id: str, turn: int, root: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO checkpoint_roots (session_id, turn, root) VALUES (?, ?, ?)",
        (session_id, turn, root),
    )


def read_roots(conn: sqlite3.Connection, session_id: str, turns: list[int]) -> set[str]:
    marks = ",".join("?" * len(turns))
    sql = f"SELECT DISTINCT root FROM checkpoint_roots WHERE session_id = ? AND turn IN ({marks})"
    return {r[0] for r in conn.execute(sql, (session_id, *turns)).fetchall()}


def read_checkpoint(conn: sqlite3.Connection, session_id: str, turn: int, path: str) -> Checkpoint | None:
    row = named_row(
        conn.execute(
            "SELECT c.sha256, b.data FROM file_checkpoints c LEFT JOIN file_blobs b ON b.sha256 = c.sha256"
            " WHERE c.session_id = ? AND c.turn = ? AND c.path = ?",
            (session_id, turn, path),
        )
    )
    if row is None or (row.sha256 is not None and row.data is None):
        return None
    return Checkpoint(row.sha256, None if row.data is None else bytes(row.data))


def copy_checkpoints(conn: sqlite3.Connection, source: str, child: str) -> None:
    """A fork keeps the checkpoints of the turns it copied (its `turns` rows are in already)."""
    conn.execute(
        "INSERT OR IGNORE INTO file_checkpoints (session_id, turn, path, sha256)"
        " SELECT ?, turn, path, sha256 FROM file_checkpoints"
        " WHERE session_id = ? AND turn IN (SELECT turn FROM turns WHERE session_id = ?)",
        (child, source, child),
    )
    for table, cols in (
        ("snapshot_checkpoints", "turn, path, sha256, oid, repo, created"),
        ("checkpoint_roots", "turn, root"),
    ):
        conn.execute(
            f"INSERT OR IGNORE INTO {table} (session_id, {cols}) SELECT ?, {cols} FROM {table}"
            " WHERE session_id = ? AND turn IN (SELECT turn FROM turns WHERE session_id = ?)",
            (child, source, child),
        )


def drop_checkpoints(conn: sqlite3.Connection, session_id: str) -> int:
    """Forget a deleted session's checkpoints; returns how many blobs nobody uses any more."""
    rows = conn.execute(
        "SELECT DISTINCT sha256 FROM file_checkpoints WHERE session_id = ? AND sha256 IS NOT NULL",
        (session_id,),
    )
    shas = [r[0] for r in rows.fetchall()]
    conn.execute("DELETE FROM file_checkpoints WHERE session_id = ?", (session_id,))
    conn.execute("DELETE FROM snapshot_checkpoints WHERE session_id = ?", (session_id,))
    conn.execute("DELETE FROM checkpoint_roots WHERE session_id = ?", (session_id,))
    return drop_unreferenced(conn, "file_blobs", shas)


_SHARED = {
    "attachments": ("id", "session_attachments", "attachment_id"),
    "file_blobs": ("sha256", "file_checkpoints", "sha256"),
}
"""Blob table: (its key, the table whose rows reference a blob, their column naming it)."""


def drop_unreferenced(conn: sqlite3.Connection, table: str, keys: Iterable[str]) -> int:
    """The one clean-up of blobs shared by content (image attachments, file checkpoints): each of
    `keys` goes unless a row still references it (a fork, a repeated image); returns how many went."""
    key, refs, ref = _SHARED[table]
    sql = f"DELETE FROM {table} WHERE {key} = ? AND NOT EXISTS (SELECT 1 FROM {refs} WHERE {ref} = ?)"
    return sum(conn.execute(sql, (k, k)).rowcount for k in dict.fromkeys(keys))
