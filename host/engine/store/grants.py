"""Approval grants ("Allow always"), kept host-side in their own table (docs/threat-model.md).

A grant is never derived from a session's event log: the log is portable (export, import, fork)
and anyone can forge one. The `approval/decided` events stay in the log as an audit for the
conversation view only. Rows are `(session, tool, scope)`: today every grant has the empty scope
(the whole tool); scoped rules (a bash leading word, a file tool per workspace) fit the same key.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

DDL = """
CREATE TABLE IF NOT EXISTS grants (
    session_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    scope TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, tool, scope)
) WITHOUT ROWID;
"""

WHOLE_TOOL = ""
"""The scope of a grant that covers every call of its tool."""


@dataclass(frozen=True)
class Grant:
    tool: str
    scope: str = WHOLE_TOOL
    created_at: int = 0


def read_grants(conn: sqlite3.Connection, session_id: str) -> list[Grant]:
    rows = conn.execute(
        "SELECT tool, scope, created_at FROM grants WHERE session_id = ? ORDER BY created_at, tool, scope",
        (session_id,),
    ).fetchall()
    return [Grant(tool=r[0], scope=r[1], created_at=int(r[2])) for r in rows]


def write_grant(conn: sqlite3.Connection, session_id: str, grant: Grant) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO grants (session_id, tool, scope, created_at) VALUES (?, ?, ?, ?)",
        (session_id, grant.tool, grant.scope, grant.created_at),
    )


def delete_grants(conn: sqlite3.Connection, session_id: str, tool: str | None = None) -> None:
    if tool is None:
        conn.execute("DELETE FROM grants WHERE session_id = ?", (session_id,))
    else:
        conn.execute("DELETE FROM grants WHERE session_id = ? AND tool = ?", (session_id, tool))
