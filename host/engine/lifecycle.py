"""Creating and deleting sessions: one part of the `Engine` facade, kept in a module of its own.

A new session is lazy (nothing is written until its first event) and its folder is created if
missing; a session created in a workspace is attached to it once published; a deleted session
takes its log, search rows, grants, unshared blobs and workspace/archive entries with it
(docs/decisions.md "Workspaces").
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Literal

from contract.frames import HostSessionAdded, HostSessionRemoved
from host.engine import ids
from host.engine.bus import Bus
from host.engine.errors import AgentBusy, HostActionFailed, SessionConflict, SessionNotFound
from host.engine.jobs import JobRegistry
from host.engine.journal import now_ms
from host.engine.permissions.policy import PermissionService
from host.engine.pool import AgentPool
from host.engine.presets.service import PresetService
from host.engine.selection import Selections
from host.engine.store import SessionHeader, Store
from host.engine.workspaces import WorkspaceRegistry


def _expand(path: str) -> str:
    return os.path.expanduser(path)  # string work only (and $HOME): no disk


class SessionLifecycle:
    """Mixed into `Engine`, which sets these attributes."""

    store: Store
    bus: Bus
    pool: AgentPool
    selections: Selections
    workspaces: WorkspaceRegistry
    presets: PresetService
    permissions: PermissionService
    jobs: JobRegistry
    default_cwd: str
    _closed: bool

    if TYPE_CHECKING:  # provided by PresetsDoor, later in the Engine's bases

        async def session_preset(self, session_id: str) -> str | None: ...

        async def subagent_tree(self, session_id: str) -> list[str]: ...

    async def create_session(
        self,
        cwd: str | None = None,
        session_id: str | None = None,
        agent_preset: str | None = None,
        workspace_id: str | None = None,
        origin: Literal["acp"] | None = None,
    ) -> str:
        """A new lazy session (nothing written until its first event), its cwd created if
        missing. Idempotent for a preallocated id with the same cwd; SessionConflict when it
        exists with another (AgentPresetConflict: another preset). `agent_preset` defaults to the
        default preset. With `workspace_id` the cwd is the workspace's path and the
        published session is then attached to it (WorkspaceAttachFailed: it exists anyway).
        `origin="acp"` marks a session an editor started (a new session only)."""
        self._check_open()
        if workspace_id is not None:
            cwd = self.workspaces.get(workspace_id).path
        cwd = _expand(cwd) if cwd else self.default_cwd
        existing = await self.store.header(session_id) if session_id is not None else None
        if existing is not None:
            if existing.cwd != cwd:
                raise SessionConflict(existing.id, cwd, existing.cwd)
            self.presets.check_adopt(existing, agent_preset, await self.session_preset(existing.id))
        sid = (
            existing.id
            if existing is not None
            else await self._new_session(cwd, session_id, agent_preset, origin)
        )
        if workspace_id is not None:
            await self.workspaces.attach(workspace_id, sid)
        return sid

    async def _new_session(
        self, cwd: str, session_id: str | None, agent_preset: str | None, origin: Literal["acp"] | None = None
    ) -> str:
        try:
            await asyncio.to_thread(os.makedirs, cwd, exist_ok=True)
        except OSError as exc:
            raise HostActionFailed(f"cannot create the folder {cwd}: {exc.strerror or exc}") from exc
        preset = await self.presets.resolve(agent_preset)
        sid = session_id or ids.session_id()
        header = SessionHeader(id=sid, created_at=now_ms(), cwd=cwd, agent_preset=preset, origin=origin)
        self.store.register(header)
        self.permissions.pin(sid)
        self._announce(header)
        return sid

    async def delete_session(self, session_id: str) -> None:
        """Remove a session for good (log, search rows, blobs nobody else uses, its workspace and
        archive entries) with its subagents; `agent-busy` while any of them works. Other sessions
        forked from it stay."""
        await self._header(session_id)
        children = await self.subagent_tree(session_id)
        for sid in [session_id, *children]:
            if self.pool.busy(sid):
                raise AgentBusy("the session or one of its subagents is working; stop it before deleting it")
        for child in reversed(children):
            await self._delete(child)
        await self._delete(session_id)

    async def _delete(self, session_id: str) -> None:
        await self.pool.release(session_id)
        self.pool.forget(session_id)
        await self.jobs.dispose_session(session_id)  # its background jobs end with it
        await self.store.delete_session(session_id)
        self.selections.forget(session_id)
        await self.workspaces.session_deleted(session_id)
        self.bus.publish("host", HostSessionRemoved(session_id=session_id))

    def _announce(self, header: SessionHeader) -> None:
        added = HostSessionAdded(
            session_id=header.id,
            blank=header.blank,
            parent_session_id=header.parent_session,
            cwd=header.cwd,
            agent_preset=header.agent_preset,
            origin=header.origin,
        )
        self.bus.publish("host", added)

    async def _header(self, session_id: str) -> SessionHeader:
        header = await self.store.header(session_id)
        if header is None:
            raise SessionNotFound(session_id)
        return header

    def _check_open(self) -> None:
        if self._closed:
            raise AgentBusy("the host is shutting down")
