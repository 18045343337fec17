"""The workspace registry: registered project folders, their sessions in manual order, the archive
set (docs/decisions.md "Workspaces"; the rules are numbered as in docs/decisions.md).

The whole registry is small, so it lives in memory and every change is written through to the
store first: a frame (`host/workspace-changed`, `host/workspace-removed`,
`host/archived-sessions-changed`) is published only once its write is durable. Create, rename,
delete, reorder, attach and archive run one at a time (one lock), so two creates of one path
give one registration.

Membership needs id plus cwd: a session belongs to a workspace only when its id is in the
account and its header cwd canonicalises (realpath) to the workspace path. Session cwds never
change, so each member's canonical cwd is computed once (at start-up or attach) and kept.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from contract.host import is_fully_qualified
from contract.workspaces import (
    HostArchivedSessionsChanged,
    HostWorkspaceChanged,
    HostWorkspaceRemoved,
    WorkspaceView,
)
from host.engine.errors import (
    SessionNotFound,
    WorkspaceAttachFailed,
    WorkspaceInvalidPath,
    WorkspaceMoveInvalid,
    WorkspaceNameConflict,
    WorkspaceNotFound,
)
from host.engine.sessions.bus import Bus
from host.engine.store import SessionHeader, ids
from host.engine.store import workspaces as tables
from host.engine.store.workspaces import WorkspaceRow

T = TypeVar("T")


class RegistryStore(Protocol):
    """What the registry needs from the store: writer-thread calls, flush, headers."""

    def call(self, fn: Callable[[sqlite3.Connection], T]) -> Awaitable[T]: ...

    async def flush(self, checkpoint: bool = False) -> None: ...

    async def header(self, session_id: str) -> SessionHeader | None: ...


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def canonical_dir(path: str) -> str | None:
    """realpath of `path` when it is an existing directory, else None (blocking: use a thread)."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    return real if os.path.isdir(real) else None


def default_title(path: str) -> str:
    return os.path.basename(path.rstrip("/\\")) or path


class WorkspaceRegistry:
    """Create with `await WorkspaceRegistry.open(store, bus)`."""

    def __init__(self, store: RegistryStore, bus: Bus, home: Callable[[str], str] | None = None) -> None:
        self._store = store
        self._bus = bus
        self.home_of: Callable[[str], str] = home or (lambda path: path)
        """A session folder → the folder whose workspace lists it: a worktree session's folder
        maps to the same place in the checkout (docs/decisions.md, "Worktree sessions")."""
        self._order: list[WorkspaceRow] = []
        self._archived: list[str] = []
        self._member_cwd: dict[str, str] = {}
        """Canonical cwd of every session that is (or was) in some account."""
        self._lock = asyncio.Lock()

    @classmethod
    async def open(
        cls, store: RegistryStore, bus: Bus, home: Callable[[str], str] | None = None
    ) -> WorkspaceRegistry:
        registry = cls(store, bus, home)
        await registry._load()
        return registry

    async def _load(self) -> None:
        state = await self._store.call(tables.load)
        if state.fresh:
            state.order = await self._bootstrap()
            state.cwds = {}
            for row in state.order:
                self._member_cwd.update(dict.fromkeys(row.session_ids, row.path))
        members = {sid for row in state.order for sid in row.session_ids} - set(self._member_cwd)
        cwds = {sid: cwd for sid in members if (cwd := state.cwds.get(sid))}
        resolved = await asyncio.to_thread(_resolved_all, cwds)
        self._member_cwd.update({sid: self.home_of(path) for sid, path in resolved.items()})
        self._order = state.order
        self._archived = state.archived

    async def _bootstrap(self) -> list[WorkspaceRow]:
        """Rule 12: on the very first start, group the existing sessions by header cwd (only
        headers are read); newest activity first, in workspaces and inside each account."""
        headers = await self._store.call(tables.headers_for_bootstrap)
        canonical = await asyncio.to_thread(_canonical_all, {sid: cwd for sid, cwd, _ in headers if cwd})
        groups: dict[str, list[tuple[int, str]]] = {}
        for sid, _, active in headers:
            if sid in canonical:
                groups.setdefault(canonical[sid], []).append((active, sid))
        stamp = now_iso()
        rows = []
        for path, members in sorted(groups.items(), key=lambda g: -max(a for a, _ in g[1])):
            account = [sid for _, sid in sorted(members, reverse=True)]
            rows.append(WorkspaceRow(ids.workspace_id(), path, default_title(path), stamp, stamp, account))
        await self._store.call(lambda conn: tables.bootstrap(conn, rows))
        await self._store.flush()
        return rows

    # ---- reads ---------------------------------------------------------------------------------

    def _members(self, row: WorkspaceRow) -> list[str]:
        return [sid for sid in row.session_ids if self._member_cwd.get(sid) == row.path]

    def view(self, row: WorkspaceRow) -> WorkspaceView:
        return WorkspaceView(
            workspace_id=row.id,
            path=row.path,
            title=row.title,
            session_ids=self._members(row),
            created_at=row.created_at,
            updated_at=row.updated_at,
            trusted=row.trusted,
        )

    def snapshot(self) -> tuple[list[WorkspaceView], list[str]]:
        """(workspaces in registry order, the archive set in archive order)."""
        return [self.view(row) for row in self._order], list(self._archived)

    def get(self, workspace_id: str) -> WorkspaceRow:
        for row in self._order:
            if row.id == workspace_id:
                return row
        raise WorkspaceNotFound(workspace_id)

    def workspace_at(self, path: str) -> str | None:
        """The id of the workspace registered for exactly this folder (canonical), if any."""
        real = os.path.realpath(path)
        return next((row.id for row in self._order if row.path == real), None)

    def containing(self, session_id: str) -> str | None:
        """The id of the workspace whose account holds `session_id`, if any."""
        for row in self._order:
            if session_id in self._members(row):
                return row.id
        return None

    @property
    def archived(self) -> list[str]:
        return list(self._archived)

    # ---- registrations -------------------------------------------------------------------------

    async def create(self, path: str) -> tuple[WorkspaceView, bool]:
        """Rule 1: adopt an existing directory; the same canonical path is one registration."""
        canonical = await asyncio.to_thread(canonical_dir, path) if is_fully_qualified(path) else None
        if canonical is None:
            raise WorkspaceInvalidPath(path, f"not an existing directory: {path}")
        async with self._lock:
            for row in self._order:
                if row.path == canonical:
                    return self.view(row), False
            stamp = now_iso()
            row = WorkspaceRow(ids.workspace_id(), canonical, default_title(canonical), stamp, stamp)
            await self._write(lambda conn: tables.insert_workspace(conn, row))
            self._order.insert(0, row)
            return self._changed(row), True

    async def rename(self, workspace_id: str, title: str) -> WorkspaceView:
        """Rule 3: a title another workspace holds is refused; the current title is a no-op."""
        clean = title.strip()
        async with self._lock:
            row = self.get(workspace_id)
            if clean == row.title:
                return self.view(row)
            if any(other.title == clean for other in self._order if other.id != workspace_id):
                raise WorkspaceNameConflict(clean)
            return await self._update(row, title=clean)

    async def set_trust(self, workspace_id: str, trusted: bool) -> WorkspaceView:
        """Folder trust (docs/decisions.md, "MCP servers"): durable, then announced."""
        async with self._lock:
            row = self.get(workspace_id)
            if row.trusted == trusted:
                return self.view(row)
            stamp = now_iso()
            await self._write(lambda conn: tables.set_trusted(conn, workspace_id, trusted, stamp))
            row.trusted, row.updated_at = trusted, stamp
            return self._changed(row)

    def trusted_paths(self) -> list[str]:
        return [row.path for row in self._order if row.trusted]

    async def delete(self, workspace_id: str) -> None:
        """Rule 4: unregister only; the directory, sessions and logs stay (they become Ungrouped)."""
        async with self._lock:
            row = self.get(workspace_id)
            await self._write(lambda conn: tables.delete_workspace(conn, workspace_id))
            self._order.remove(row)
            self._bus.publish("host", HostWorkspaceRemoved(workspace_id=workspace_id))

    async def insert_session_before(
        self, workspace_id: str, session_id: str, before_session_id: str | None
    ) -> WorkspaceView:
        """Rule 6: like DOM insertBefore; without an anchor the session moves to the end."""
        async with self._lock:
            row = self.get(workspace_id)
            members = self._members(row)
            if session_id not in members or (
                before_session_id is not None and before_session_id not in members
            ):
                raise WorkspaceMoveInvalid(workspace_id, session_id, before_session_id)
            if before_session_id == session_id:
                return self.view(row)
            moved = [sid for sid in members if sid != session_id]
            moved.insert(
                len(moved) if before_session_id is None else moved.index(before_session_id), session_id
            )
            if moved == members:
                return self.view(row)
            return await self._update(row, session_ids=moved)

    async def attach(self, workspace_id: str, session_id: str) -> WorkspaceView:
        """Rules 7-8: prepend a session whose header cwd resolves to the workspace path.
        Already a member: nothing is written (a retried create finishes idempotently)."""
        async with self._lock:
            row = self.get(workspace_id)
            if session_id in self._members(row):
                return self.view(row)
            header = await self._store.header(session_id)
            cwd = header.cwd if header is not None else None
            canonical = await asyncio.to_thread(canonical_dir, cwd) if cwd else None
            canonical = self.home_of(canonical) if canonical is not None else None
            if canonical != row.path:
                why = "its folder does not exist" if canonical is None else f"it works in {canonical}"
                raise WorkspaceAttachFailed(session_id, workspace_id, why)
            self._member_cwd[session_id] = canonical
            return await self._update(row, session_ids=[session_id, *self._members(row)])

    # ---- the archive set -----------------------------------------------------------------------

    async def archive(self, session_id: str) -> list[str]:
        """Rule 5: append to the registry-wide hide set; archiving twice writes nothing."""
        async with self._lock:
            if session_id in self._archived:
                return list(self._archived)
            if await self._store.header(session_id) is None:
                raise SessionNotFound(session_id)
            return await self._set_archive([*self._archived, session_id])

    async def unarchive(self, session_id: str) -> list[str]:
        """Back to the list, in its old slot (archiving never moved it in its account)."""
        async with self._lock:
            if session_id not in self._archived:
                if await self._store.header(session_id) is None:
                    raise SessionNotFound(session_id)
                return list(self._archived)
            return await self._set_archive([s for s in self._archived if s != session_id])

    # ---- a session deleted for good ------------------------------------------------------------

    async def session_deleted(self, session_id: str) -> None:
        """The store already dropped the session's account and archive rows (in its delete):
        bring memory in line and tell every client."""
        async with self._lock:
            for row in self._order:
                if session_id in row.session_ids:
                    row.session_ids.remove(session_id)
                    row.updated_at = now_iso()
                    self._changed(row)
            self._member_cwd.pop(session_id, None)
            if session_id in self._archived:
                self._archived.remove(session_id)
                self._bus.publish("host", HostArchivedSessionsChanged(archived_session_ids=self._archived))

    # ---- plumbing ------------------------------------------------------------------------------

    async def _write(self, fn: Callable[[sqlite3.Connection], Any]) -> None:
        """Durable before visible: the write is committed before any frame goes out."""
        await self._store.call(fn)
        await self._store.flush()

    async def _update(
        self, row: WorkspaceRow, *, title: str | None = None, session_ids: Sequence[str] | None = None
    ) -> WorkspaceView:
        """Write a changed record (members that stopped qualifying are pruned), then announce it."""
        members = list(session_ids) if session_ids is not None else self._members(row)
        new = WorkspaceRow(
            row.id, row.path, title or row.title, row.created_at, now_iso(), members, row.trusted
        )
        await self._write(lambda conn: tables.update_workspace(conn, new))
        row.title, row.updated_at, row.session_ids = new.title, new.updated_at, new.session_ids
        return self._changed(row)

    def _changed(self, row: WorkspaceRow) -> WorkspaceView:
        view = self.view(row)
        self._bus.publish("host", HostWorkspaceChanged(workspace=view))
        return view

    async def _set_archive(self, archived: list[str]) -> list[str]:
        await self._write(lambda conn: tables.write_archive(conn, archived))
        self._archived = archived
        self._bus.publish("host", HostArchivedSessionsChanged(archived_session_ids=archived))
        return list(archived)


def _resolved_all(cwds: dict[str, str]) -> dict[str, str]:
    """Session id → realpath of its cwd, existing or not: a folder that is gone for a while (an
    unmounted drive) keeps its sessions in the workspace rather than pruning them."""
    out = {}
    for sid, cwd in cwds.items():
        try:
            out[sid] = os.path.realpath(cwd)
        except (OSError, ValueError):
            continue
    return out


def _canonical_all(cwds: dict[str, str | None]) -> dict[str, str]:
    """Session id → canonical existing directory, for the cwds that resolve to one."""
    out = {}
    for sid, cwd in cwds.items():
        canonical = canonical_dir(cwd) if cwd else None
        if canonical is not None:
            out[sid] = canonical
    return out
