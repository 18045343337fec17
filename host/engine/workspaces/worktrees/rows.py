"""The worktrees the app knows, in memory and written through to the store (docs/decisions.md,
"Worktree sessions").

Loaded before the workspace registry and the permission service, which ask it two things
synchronously: which checkout folder a session folder corresponds to (`home_of`: a worktree
session is listed in its checkout's workspace) and what a session folder's sandbox binds
(`binds_for`). A change is durable before it is visible.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol, TypeVar

from host.engine.sandbox.binds import NO_BINDS, SandboxBinds
from host.engine.store import worktrees as tables
from host.engine.store.worktrees import WorkspaceWorktreeSettings, WorktreeRow
from host.engine.workspaces.worktrees.layout import binds, home_of, row_of

T = TypeVar("T")


class RowStore(Protocol):
    def call(self, fn: Callable[[sqlite3.Connection], T]) -> Awaitable[T]: ...

    async def flush(self, checkpoint: bool = False) -> None: ...


class WorktreeRows:
    """Create with `await WorktreeRows.open(store)`."""

    def __init__(self, store: RowStore) -> None:
        self._store = store
        self.rows: list[WorktreeRow] = []
        self.settings: dict[str, WorkspaceWorktreeSettings] = {}

    @classmethod
    async def open(cls, store: RowStore) -> WorktreeRows:
        table = cls(store)
        table.rows = await store.call(tables.read_rows)
        table.settings = await store.call(tables.read_settings)
        return table

    def at(self, path: str) -> WorktreeRow | None:
        return next((r for r in self.rows if r.path == path), None)

    def of(self, folder: str | None) -> WorktreeRow | None:
        """The worktree `folder` (a session's folder) lies in."""
        return row_of(folder, self.rows) if folder else None

    def home_of(self, folder: str) -> str:
        return home_of(folder, self.rows)

    def binds_for(self, folder: Path) -> SandboxBinds:
        """A session folder's sandbox additions (blocking: it stats)."""
        row = self.of(str(folder))
        return binds(row) if row is not None else NO_BINDS

    async def put(self, row: WorktreeRow) -> None:
        await self._store.call(lambda conn: tables.write_row(conn, row))
        await self._store.flush()
        self.rows = [r for r in self.rows if r.path != row.path] + [row]

    async def drop(self, path: str) -> None:
        await self._store.call(lambda conn: tables.delete_row(conn, path))
        await self._store.flush()
        self.rows = [r for r in self.rows if r.path != path]

    def settings_of(self, workspace_id: str | None) -> WorkspaceWorktreeSettings:
        return self.settings.get(workspace_id or "", WorkspaceWorktreeSettings())

    async def set_settings(self, workspace_id: str, settings: WorkspaceWorktreeSettings) -> None:
        await self._store.call(lambda conn: tables.write_settings(conn, workspace_id, settings))
        await self._store.flush()
        self.settings[workspace_id] = settings
