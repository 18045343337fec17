"""The worktrees sessions work in, and each workspace's worktree settings, kept host-side
(docs/decisions.md, "Worktree sessions").

A row of `worktrees` is one git worktree the app knows: its folder (`path`, real), the person's
checkout it belongs to (`local`, the repository's top) and the shared git directory (`common`),
its own git directory (`gitdir`), its branch and the base it is compared with, and whether the app
made it (`owned`: only those are ever removed by the app). A session works in a worktree when its
folder lies inside `path` (forks share their parent's). `worktree_settings` holds each
workspace's choices: new sessions in a worktree or not, where worktrees go, which ignored files
are copied in and the setup command. Neither table is ever derived from a session's log.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from host.engine.store.named import named_rows

DDL = """
CREATE TABLE IF NOT EXISTS worktrees (
    path TEXT PRIMARY KEY,
    local TEXT NOT NULL,
    common TEXT NOT NULL,
    gitdir TEXT NOT NULL,
    branch TEXT NOT NULL,
    base TEXT NOT NULL,
    start TEXT NOT NULL,
    owned INTEGER NOT NULL,
    created_branch INTEGER NOT NULL,
    session_id TEXT,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS worktree_settings (
    workspace_id TEXT PRIMARY KEY,
    enabled INTEGER NOT NULL DEFAULT 0,
    location TEXT,
    copy_json TEXT NOT NULL DEFAULT '[]',
    setup TEXT
) WITHOUT ROWID;
"""


@dataclass(frozen=True)
class WorktreeRow:
    path: str
    """The worktree's top, real path."""
    local: str
    """The person's checkout (the repository's main work tree), real path."""
    common: str
    """The shared git directory (`local/.git`), real path."""
    gitdir: str
    """The worktree's own git directory (`common/worktrees/<name>`), real path."""
    branch: str
    base: str
    """The branch it is compared with and merged into."""
    start: str
    """The commit the branch pointed at when the app made it (an untouched branch is deleted
    with a worktree nobody used)."""
    owned: bool
    """The app made it (and may remove it); False for a worktree the person made."""
    created_branch: bool
    """The app created its branch."""
    session_id: str | None
    created_at: int


@dataclass(frozen=True)
class WorkspaceWorktreeSettings:
    enabled: bool = False
    """New sessions in this workspace start in a new worktree (the New session checkbox)."""
    location: str | None = None
    """Where its worktrees go (None: under the data folder)."""
    copy: list[str] = field(default_factory=list)
    """Ignored files copied into a new worktree (`.env`), relative to the repository's top."""
    setup: str | None = None
    """A command run in the sandbox in a new worktree before the first turn (`npm ci`)."""


def read_rows(conn: sqlite3.Connection) -> list[WorktreeRow]:
    rows = named_rows(
        conn.execute(
            "SELECT path, local, common, gitdir, branch, base, start, owned, created_branch, session_id,"
            " created_at FROM worktrees ORDER BY created_at, path"
        )
    )
    return [
        WorktreeRow(
            str(r.path),
            str(r.local),
            str(r.common),
            str(r.gitdir),
            str(r.branch),
            str(r.base),
            str(r.start),
            bool(r.owned),
            bool(r.created_branch),
            r.session_id,
            int(r.created_at),
        )
        for r in rows
    ]


def write_row(conn: sqlite3.Connection, row: WorktreeRow) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO worktrees (path, local, common, gitdir, branch, base, start, owned,"
        " created_branch, session_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row.path,
            row.local,
            row.common,
            row.gitdir,
            row.branch,
            row.base,
            row.start,
            int(row.owned),
            int(row.created_branch),
            row.session_id,
            row.created_at,
        ),
    )


def delete_row(conn: sqlite3.Connection, path: str) -> None:
    conn.execute("DELETE FROM worktrees WHERE path = ?", (path,))


def read_settings(conn: sqlite3.Connection) -> dict[str, WorkspaceWorktreeSettings]:
    rows = named_rows(
        conn.execute("SELECT workspace_id, enabled, location, copy_json, setup FROM worktree_settings")
    )
    out = {}
    for r in rows:
        try:
            copy = [str(x) for x in json.loads(r.copy_json)]
        except (ValueError, TypeError):
            copy = []
        out[str(r.workspace_id)] = WorkspaceWorktreeSettings(bool(r.enabled), r.location, copy, r.setup)
    return out


def write_settings(conn: sqlite3.Connection, workspace_id: str, settings: WorkspaceWorktreeSettings) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO worktree_settings (workspace_id, enabled, location, copy_json, setup)"
        " VALUES (?, ?, ?, ?, ?)",
        (workspace_id, int(settings.enabled), settings.location, json.dumps(settings.copy), settings.setup),
    )
