"""`engine.sessions`: creating, listing, renaming, forking, searching and deleting sessions, and
reading their history (docs/architecture.md, "The engine").

A new session is lazy (nothing is written until its first event) and its folder is created if
missing; a session created in a workspace is attached to it once published; a deleted session
takes its log, search rows, grants, unshared blobs and workspace/archive entries with it
(docs/decisions.md "Workspaces").
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any, Literal

from contract.content import AttachmentRef
from contract.events import SessionEvent
from contract.frames import HostSessionRemoved
from contract.permissions import PERMISSIONS_KEY
from contract.sessions import HistoryValue, Projections, SessionSummary
from contract.views import HistoryEntry
from contract.worktrees import WORKTREE_KEY, WorktreeSpec
from host.engine.agent.attention import Attention
from host.engine.agent.pool import AgentPool
from host.engine.errors import (
    AgentBusy,
    AttachmentError,
    HostActionFailed,
    SessionAlreadyHere,
    SessionConflict,
    TitleInvalid,
)
from host.engine.services.agents import Agents
from host.engine.services.goals import Goals
from host.engine.services.health import StorageHealth
from host.engine.services.jobs import Jobs
from host.engine.services.presets import Presets
from host.engine.services.subagents import subagent_tree
from host.engine.sessions import events
from host.engine.sessions.bus import Bus
from host.engine.sessions.history import HistoryPage, history_page
from host.engine.sessions.history_wire import encode_history
from host.engine.sessions.imported import drop_pending_input, parent_of, rows_with_cwd
from host.engine.sessions.journal import now_ms
from host.engine.sessions.listing import EncodedList, ListEncoder, Live, summaries
from host.engine.sessions.lookup import Announce, Header
from host.engine.sessions.titles import export_file_name, normalise
from host.engine.sessions.tool_views import page_views
from host.engine.settings.selection import Selections
from host.engine.store import ExportRow, SearchResult, SessionExists, SessionHeader, Store, ids
from host.engine.store.base import ListedSession
from host.engine.tools.permissions.policy import PermissionService
from host.engine.workspaces.registry import WorkspaceRegistry
from host.engine.workspaces.worktrees.service import Worktrees

Fork = Callable[[str, int | None], Awaitable[str]]
"""(session id, anchor seq) → the child's id."""


def _expand(path: str) -> str:
    return os.path.expanduser(path)  # string work only (and $HOME): no disk


class Sessions:
    """Sessions: create, list, rename, fork, search, delete; history pages and their projections;
    attachments, export and import."""

    def __init__(
        self,
        pool: AgentPool,
        store: Store,
        bus: Bus,
        header: Header,
        announce: Announce,
        selections: Selections,
        default_cwd: str,
        *,
        health: StorageHealth,
        permissions: PermissionService,
        workspaces: WorkspaceRegistry,
        presets: Presets,
        agents: Agents,
        goals: Goals,
        jobs: Jobs,
        fork: Fork,
        fork_restoring: Fork,
        attention: Attention,
        worktrees: Worktrees,
    ) -> None:
        self._worktrees = worktrees
        self._pool = pool
        self._store = store
        self._bus = bus
        self._header = header
        self._announce = announce
        self._selections = selections
        self._default_cwd = default_cwd
        self._health = health
        self._permissions = permissions
        self._workspaces = workspaces
        self._presets = presets
        self._agents = agents
        self._goals = goals
        self._jobs = jobs
        self._fork = fork
        self._fork_restoring = fork_restoring
        self._attention = attention
        self._list_encoder = ListEncoder()

    # ---- listing and lookup -------------------------------------------------------------------

    async def list_sessions(self) -> list[SessionSummary]:
        """Every session, newest activity first; a header that breaks the contract is skipped."""
        live, rows, worktrees = await self._listed()
        return summaries(rows, live, self._attention.view, worktrees)

    async def list_value(self) -> EncodedList:
        """`session.list`'s answer, already encoded (the cold rows' summaries kept encoded)."""
        live, rows, worktrees = await self._listed()
        return self._list_encoder.encode(rows, live, self._attention.active(), worktrees)

    async def _listed(self) -> tuple[dict[str, Live], list[ListedSession], dict[str, Any]]:
        live = {
            sid: Live(
                agent.running,
                agent.journal.title,
                agent.composition.preset.id,
                agent.journal.last_seq,
                self._goals.live_values(agent),
            )
            for sid, agent in self._pool.agents.items()
        }
        rows = await self._store.sessions()
        by_folder: dict[str | None, dict[str, Any] | None] = {}  # a few folders for thousands of rows
        for cwd in {r.cwd for r in rows}:
            by_folder[cwd] = self._worktrees.state_of(cwd)
        worktrees = {r.id: state for r in rows if (state := by_folder[r.cwd]) is not None}
        return live, rows, worktrees

    async def mark_seen(self, session_id: str) -> None:
        """A window shows the session: its finished turns are no longer news (in every window)."""
        await self._header(session_id)
        self._attention.seen(session_id)

    async def has_session(self, session_id: str) -> bool:
        return await self._store.header(session_id) is not None

    # ---- create and delete ----------------------------------------------------------------------

    async def create_session(
        self,
        cwd: str | None = None,
        session_id: str | None = None,
        agent_preset: str | None = None,
        workspace_id: str | None = None,
        origin: Literal["acp"] | None = None,
        worktree: WorktreeSpec | None = None,
    ) -> str:
        """A new lazy session (nothing written until its first event), its cwd created if
        missing. Idempotent for a preallocated id with the same cwd; SessionConflict when it
        exists with another (AgentPresetConflict: another preset). `agent_preset` defaults to the
        default preset. With `workspace_id` the cwd is the workspace's path and the
        published session is then attached to it (WorkspaceAttachFailed: it exists anyway).
        `origin="acp"` marks a session an editor started (a new session only). With `worktree`
        the session works in a git worktree of the folder's repository, made now
        (`engine.worktrees`; docs/decisions.md, "Worktree sessions")."""
        self._pool.check_open()
        if workspace_id is not None:
            cwd = self._workspaces.get(workspace_id).path
        cwd = _expand(cwd) if cwd else self._default_cwd
        existing = await self._store.header(session_id) if session_id is not None else None
        if existing is not None:
            if existing.cwd != cwd and (
                worktree is None or self._worktrees.home_of(existing.cwd or "") != cwd
            ):
                raise SessionConflict(existing.id, cwd, existing.cwd)
            recorded = await self._presets.session_preset(existing.id)
            self._presets.service.check_adopt(existing, agent_preset, recorded)
        if existing is None and worktree is not None:
            session_id = session_id or ids.session_id()
            cwd = await self._worktrees.place(cwd, worktree, workspace_id, session_id)
            try:
                sid = await self._new_session(cwd, session_id, agent_preset, origin)
            except BaseException:
                await asyncio.shield(
                    self._worktrees.session_deleted(cwd, keep_branch=False)
                )  # no session, no worktree
                raise
        else:
            sid = (
                existing.id
                if existing is not None
                else await self._new_session(cwd, session_id, agent_preset, origin)
            )
        if workspace_id is not None:
            await self._workspaces.attach(workspace_id, sid)
        return sid

    async def _new_session(
        self, cwd: str, session_id: str | None, agent_preset: str | None, origin: Literal["acp"] | None = None
    ) -> str:
        try:
            await asyncio.to_thread(os.makedirs, cwd, exist_ok=True)
        except OSError as exc:
            raise HostActionFailed(f"cannot create the folder {cwd}: {exc.strerror or exc}") from exc
        sid = session_id or ids.session_id()
        preset = await self._presets.service.resolve(agent_preset, sid)
        header = SessionHeader(id=sid, created_at=now_ms(), cwd=cwd, agent_preset=preset, origin=origin)
        self._store.register(header)
        self._permissions.pin(sid)
        self._announce(header)
        return sid

    async def delete_session(self, session_id: str) -> None:
        """Remove a session for good (log, search rows, blobs nobody else uses, its workspace and
        archive entries) with its subagents; `agent-busy` while any of them works. Other sessions
        forked from it stay."""
        await self._header(session_id)
        children = await subagent_tree(self._store, session_id)
        for sid in [session_id, *children]:
            if self._pool.busy(sid):
                raise AgentBusy("the session or one of its subagents is working; stop it before deleting it")
        for child in reversed(children):
            await self._delete(child)
        await self._delete(session_id)

    async def _delete(self, session_id: str) -> None:
        pool = self._pool
        await pool.release(session_id)
        pool.forget(session_id)
        await self._jobs.dispose_session(session_id)  # its background jobs end with it
        folder = (await self._header(session_id)).cwd
        await self._store.delete_session(session_id)
        self._selections.forget(session_id)
        self._attention.forget(session_id)
        await self._workspaces.session_deleted(session_id)
        await self._worktrees.session_deleted(folder)  # its worktree goes when nobody works there
        self._bus.publish("host", HostSessionRemoved(session_id=session_id))

    # ---- history ------------------------------------------------------------------------------

    async def history(
        self, session_id: str, before_seq: int | None = None, max_messages: int = 50
    ) -> tuple[list[SessionEvent], bool, Projections | None]:
        """A page of raw events; a cold session is repaired in memory (nothing written)."""
        page = await self._history_page(session_id, before_seq, max_messages)
        return page.events, page.has_more, page.projections

    async def history_value(
        self, session_id: str, before_seq: int | None = None, max_messages: int = 50
    ) -> HistoryValue:
        """`history` as its wire answer, spliced from the stored JSON
        (host/engine/sessions/history_wire.py)."""
        page = await self._history_page(session_id, before_seq, max_messages)
        return encode_history(page.rows, page.extra, page.has_more, page.projections)

    async def _history_page(self, session_id: str, before_seq: int | None, max_messages: int) -> HistoryPage:
        agent = self._pool.get(session_id)
        cold = None if agent is not None else await self._header(session_id)
        values: dict[str, Any] = {}
        title = agent.journal.title if agent is not None else (cold.title if cold else None)
        if title:
            values["title"] = title
        if before_seq is None and (context := await self._agents.context_projection(session_id, cold)):
            values["context"] = context
        reason = self._pool.failed.get(session_id)  # a turn a store failure cut short
        unsaved = self._pool.unsaved.get(session_id)
        page = await history_page(
            self._store, session_id, cold, values, before_seq, max_messages, reason, unsaved
        )
        if page.projections is not None:
            projections = page.projections
            projections.values.update(await self._presets.preset_projections(session_id, cold))
            projections.values.update(await self._goals.goal_projection(session_id, cold))
            projections.values[PERMISSIONS_KEY] = (await self._permissions.projection(session_id)).dump()
            header = cold or await self._header(session_id)
            projections.values[WORKTREE_KEY] = self._worktrees.state_of(header.cwd)
        return page

    def history_entries(self, events: list[SessionEvent]) -> list[HistoryEntry]:
        """A page's events as history entries, each tool call and result with its view
        (host/engine/sessions/tool_views.py: a result finds its call on the same page only)."""
        return [HistoryEntry(event=e, view=v) for e, v in zip(events, page_views(events), strict=True)]

    # ---- titles, forks, search ----------------------------------------------------------------

    async def rename(self, session_id: str, title: str) -> tuple[str, int]:
        """Pin a user title; returns (normalised title, its event seq)."""
        await self._header(session_id)
        clean = normalise(title)
        if not clean:
            raise TitleInvalid(session_id, "the title has nothing visible")
        agent = await self._pool.attach(session_id)
        event = agent.journal.append(events.session_title(clean, "user"))
        await self._health.saved(agent.journal, event.seq)
        return clean, event.seq

    async def fork(self, session_id: str, at_seq: int | None = None, restore_files: bool = False) -> str:
        """A child session with the history through the anchor turn, then `session/end-seed`;
        with `restore_files` the files later turns changed are put back too (`engine.files`)."""
        if restore_files:
            return await self._fork_restoring(session_id, at_seq)
        return await self._fork(session_id, at_seq)

    async def search(
        self, query: str, session_id: str | None = None, after: int | None = None, limit: int = 20
    ) -> SearchResult:
        """Every matching message, a page at a time; the query is literal text, never syntax.
        Within one session (`session_id`) in reading order, with the number of matches."""
        if session_id is not None:
            await self._header(session_id)
        return await self._store.search(query.strip(), limit, session_id, after)

    # ---- attachments, export, import ----------------------------------------------------------

    async def attachment(self, session_id: str, attachment_id: str) -> tuple[AttachmentRef, bytes]:
        await self._header(session_id)
        found = await self._store.attachment(session_id, attachment_id)
        if found is None:
            raise AttachmentError("the session does not reference that attachment")
        return found

    async def export_file_name(self, session_id: str) -> str:
        """The export's file name: the session's title and date."""
        header = await self._header(session_id)
        agent = self._pool.get(session_id)
        title = agent.journal.title if agent is not None else header.title
        return export_file_name(title, header.updated_at, session_id)

    async def export_rows(self, session_id: str) -> AsyncIterator[ExportRow]:
        """Header, events and referenced attachments, streamed (for the ZIP export)."""
        await self._header(session_id)
        async for row in self._store.export_rows(session_id):
            yield row

    async def import_rows(self, rows: Iterable[ExportRow], cwd: str) -> str:
        """Write an exported session back, working in `cwd` (the importing user's choice: the
        archive's own cwd is never used); SessionAlreadyHere when its id exists. A subagent whose
        parent is not here becomes a session of its own (nothing could message it otherwise)."""
        store = self._store
        rows = list(rows)
        parent = parent_of(rows)
        has_parent = parent is not None and await store.header(parent) is not None
        try:
            sid = await store.import_rows(rows_with_cwd(rows, cwd, has_parent))
        except SessionExists as exc:
            existing = await store.header(exc.session_id)
            raise SessionAlreadyHere(exc.session_id, existing.cwd if existing else None) from exc
        await drop_pending_input(store, sid)
        self._announce(await self._header(sid))
        return sid
