"""Approval grants ("Allow always") and permission presets, kept host-side (docs/threat-model.md).

Neither is ever derived from a session's event log: the log is portable (export, import, fork)
and anyone can forge one. The `approval/decided` and `permission/preset` events stay in the log
as an audit for the conversation view only. Grant rows are `(session, tool, scope)` with a scope
from `host/engine/tools/permissions/scope.py`; a row with the empty scope (a whole-tool grant of an
earlier version) is never honoured. `session_policies` pins each session's preset.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from host.engine.store.named import named_rows

DDL = """
CREATE TABLE IF NOT EXISTS grants (
    session_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    scope TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, tool, scope)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_policies (
    session_id TEXT PRIMARY KEY,
    preset TEXT NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
"""

WHOLE_TOOL = ""
"""The scope of an earlier version's whole-tool grant: kept in the table, never honoured."""


@dataclass(frozen=True)
class Grant:
    tool: str
    scope: str = WHOLE_TOOL
    created_at: int = 0


def read_grants(conn: sqlite3.Connection, session_id: str) -> list[Grant]:
    rows = named_rows(
        conn.execute(
            "SELECT tool, scope, created_at FROM grants WHERE session_id = ?"
            " ORDER BY created_at, tool, scope",
            (session_id,),
        )
    )
    return [Grant(tool=r.tool, scope=r.scope, created_at=int(r.created_at)) for r in rows]


def write_grant(conn: sqlite3.Connection, session_id: str, grant: Grant) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO grants (session_id, tool, scope, created_at) VALUES (?, ?, ?, ?)",
        (session_id, grant.tool, grant.scope, grant.created_at),
    )


def delete_grants(
    conn: sqlite3.Connection, session_id: str, tool: str | None = None, scope: str | None = None
) -> None:
    """One rule, one tool's rules, or (no tool) every row of the session, its preset included."""
    if tool is None:
        conn.execute("DELETE FROM grants WHERE session_id = ?", (session_id,))
        conn.execute("DELETE FROM session_policies WHERE session_id = ?", (session_id,))
    elif scope is None:
        conn.execute("DELETE FROM grants WHERE session_id = ? AND tool = ?", (session_id, tool))
    else:
        conn.execute(
            "DELETE FROM grants WHERE session_id = ? AND tool = ? AND scope = ?", (session_id, tool, scope)
        )


def read_policy(conn: sqlite3.Connection, session_id: str) -> str | None:
    row = conn.execute("SELECT preset FROM session_policies WHERE session_id = ?", (session_id,)).fetchone()
    return str(row[0]) if row else None


def write_policy(conn: sqlite3.Connection, session_id: str, preset: str, created_at: int) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO session_policies (session_id, preset, created_at) VALUES (?, ?, ?)",
        (session_id, preset, created_at),
    )
