"""The workspace registry's tables and their writer-thread operations (docs/decisions.md
"Workspaces").

`workspaces` holds one row per registered directory (`position` ascending is the display order;
a new one takes the lowest position, so it is prepended), `workspace_sessions` each workspace's
session account in manual order, `archived_sessions` the registry-wide archive set in archive
order. `meta.workspaces_bootstrapped` marks the registry's first start (see `bootstrap`).

Every function here runs on the store's writer thread inside one SAVEPOINT, so a failure leaves
the tables as they were.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from host.engine.store.named import named_rows

DDL = """
CREATE TABLE IF NOT EXISTS workspaces (
    id TEXT PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    position INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS workspace_sessions (
    workspace_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, session_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS workspace_sessions_by_session ON workspace_sessions (session_id);
CREATE TABLE IF NOT EXISTS archived_sessions (
    session_id TEXT PRIMARY KEY,
    position INTEGER NOT NULL
) WITHOUT ROWID;
"""

BOOTSTRAPPED = "workspaces_bootstrapped"


@dataclass
class WorkspaceRow:
    id: str
    path: str
    title: str
    created_at: str
    updated_at: str
    session_ids: list[str] = field(default_factory=list)
    """The account in manual order, as stored (members that stopped qualifying included)."""
    trusted: bool = False
    """Folder trust: whether what the project brings (MCP servers, hooks) may run at all."""


@dataclass
class Registry:
    """Everything the registry keeps, as read at start-up."""

    order: list[WorkspaceRow]
    archived: list[str]
    cwds: dict[str, str | None]
    """Session id → header cwd, for every session in the store (membership checks)."""
    fresh: bool
    """True on the registry's very first start (bootstrap still to do)."""


@contextlib.contextmanager
def savepoint(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("SAVEPOINT registry")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK TO registry")
        conn.execute("RELEASE registry")
        raise
    conn.execute("RELEASE registry")


def load(conn: sqlite3.Connection) -> Registry:
    rows = named_rows(
        conn.execute(
            "SELECT id, path, title, created_at, updated_at, trusted FROM workspaces ORDER BY position, id"
        )
    )
    order = [
        WorkspaceRow(r.id, r.path, r.title, r.created_at, r.updated_at, trusted=bool(r.trusted)) for r in rows
    ]
    by_id = {w.id: w for w in order}
    for workspace_id, session_id in conn.execute(
        "SELECT workspace_id, session_id FROM workspace_sessions ORDER BY workspace_id, position"
    ):
        if workspace_id in by_id:
            by_id[workspace_id].session_ids.append(session_id)
    archived = [r[0] for r in conn.execute("SELECT session_id FROM archived_sessions ORDER BY position")]
    cwds = dict(conn.execute("SELECT id, cwd FROM sessions").fetchall())
    done = conn.execute("SELECT 1 FROM meta WHERE key = ?", (BOOTSTRAPPED,)).fetchone()
    return Registry(order=order, archived=archived, cwds=cwds, fresh=done is None)


def _write_account(conn: sqlite3.Connection, workspace_id: str, session_ids: Sequence[str]) -> None:
    conn.execute("DELETE FROM workspace_sessions WHERE workspace_id = ?", (workspace_id,))
    conn.executemany(
        "INSERT INTO workspace_sessions (workspace_id, session_id, position) VALUES (?, ?, ?)",
        [(workspace_id, sid, i) for i, sid in enumerate(session_ids)],
    )


def insert_workspace(conn: sqlite3.Connection, row: WorkspaceRow) -> None:
    """A new record, prepended to the display order."""
    with savepoint(conn):
        first = conn.execute("SELECT COALESCE(MIN(position), 0) FROM workspaces").fetchone()[0]
        conn.execute(
            "INSERT INTO workspaces (id, path, title, position, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (row.id, row.path, row.title, int(first) - 1, row.created_at, row.updated_at),
        )
        _write_account(conn, row.id, row.session_ids)


def update_workspace(conn: sqlite3.Connection, row: WorkspaceRow) -> None:
    """Title, account and `updated_at` of an existing record."""
    with savepoint(conn):
        conn.execute(
            "UPDATE workspaces SET title = ?, updated_at = ? WHERE id = ?",
            (row.title, row.updated_at, row.id),
        )
        _write_account(conn, row.id, row.session_ids)


def set_trusted(conn: sqlite3.Connection, workspace_id: str, trusted: bool, updated_at: str) -> None:
    conn.execute(
        "UPDATE workspaces SET trusted = ?, updated_at = ? WHERE id = ?",
        (int(trusted), updated_at, workspace_id),
    )


def delete_workspace(conn: sqlite3.Connection, workspace_id: str) -> None:
    with savepoint(conn):
        conn.execute("DELETE FROM workspace_sessions WHERE workspace_id = ?", (workspace_id,))
        conn.execute("DELETE FROM workspaces WHERE id = ?", (workspace_id,))


def write_archive(conn: sqlite3.Connection, archived: Sequence[str]) -> None:
    with savepoint(conn):
        conn.execute("DELETE FROM archived_sessions")
        conn.executemany(
            "INSERT INTO archived_sessions (session_id, position) VALUES (?, ?)",
            [(sid, i) for i, sid in enumerate(archived)],
        )


def bootstrap(conn: sqlite3.Connection, rows: Sequence[WorkspaceRow]) -> None:
    """The registry's first start: write the grouped workspaces (first = top) and the mark."""
    with savepoint(conn):
        for position, row in enumerate(rows):
            conn.execute(
                "INSERT INTO workspaces (id, path, title, position, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (row.id, row.path, row.title, position, row.created_at, row.updated_at),
            )
            _write_account(conn, row.id, row.session_ids)
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')", (BOOTSTRAPPED,))


def headers_for_bootstrap(conn: sqlite3.Connection) -> list[tuple[str, str | None, int]]:
    """(id, cwd, last activity or creation) of every session: only headers are read."""
    sql = "SELECT id, cwd, COALESCE(last_activity, created_at) AS active FROM sessions"
    rows = named_rows(conn.execute(sql))
    return [(str(r.id), r.cwd, int(r.active)) for r in rows]
