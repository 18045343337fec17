"""Approvals of project MCP servers, kept host-side (docs/decisions.md, "MCP servers").

A row `(project, name, digest)` says the person approved the entry `name` of that project's
`.mcp.json` as it was then (`digest`: sha256 of its raw JSON); an entry that changed has another
digest and asks again. Folder trust is the `trusted` column of `workspaces`.
"""

from __future__ import annotations

import sqlite3

from host.engine.store.named import named_rows

DDL = """
CREATE TABLE IF NOT EXISTS mcp_approvals (
    project TEXT NOT NULL,
    name TEXT NOT NULL,
    digest TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (project, name)
) WITHOUT ROWID;
"""


def read_approvals(conn: sqlite3.Connection) -> dict[tuple[str, str], str]:
    rows = named_rows(conn.execute("SELECT project, name, digest FROM mcp_approvals"))
    return {(str(r.project), str(r.name)): str(r.digest) for r in rows}


def write_approval(conn: sqlite3.Connection, project: str, name: str, digest: str, at: str) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO mcp_approvals (project, name, digest, created_at) VALUES (?, ?, ?, ?)",
        (project, name, digest, at),
    )
