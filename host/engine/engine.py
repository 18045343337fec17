"""The `Engine` facade the ApiProxy calls: sessions, agents, store, settings, streams.

Methods return plain results or raise the typed exceptions of `host.engine.errors`, which the API
layer maps to RpcError codes. Everything runs on one asyncio loop; disk work happens on the
store's writer thread.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from typing import Any

from contract import __version__
from contract.content import AttachmentRef, ContentBlock, MessageSource
from contract.events import SessionEvent
from contract.finder import ATTACH_CAP_BYTES
from contract.frames import SessionJobs, SessionQueue, SessionSubscribed
from contract.host import DescribeValue
from contract.namespaces import HOOKS
from contract.permissions import PERMISSIONS_KEY
from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused
from contract.sessions import (
    HistoryValue,
    ModelSelection,
    Projections,
    PromptContent,
    SessionSummary,
)
from contract.views import HistoryEntry
from host.engine import events, ids
from host.engine.agent import Agent
from host.engine.archive_import import ArchiveImports
from host.engine.bus import Bus, Item, Subscription, push
from host.engine.changes import SessionChanges
from host.engine.commands.permission import permission_command
from host.engine.config import RuntimeOverrides
from host.engine.configuration import ConfigurationDoor
from host.engine.directories import HostFolders, NativePicker, can_open_path
from host.engine.doors import PresetsDoor
from host.engine.errors import (
    AgentBusy,
    AttachmentError,
    ModelUnavailable,
    SessionConflict,
    TitleInvalid,
)
from host.engine.files_door import FilesDoor
from host.engine.finder.service import Finder
from host.engine.fork import fork_session
from host.engine.gates import PromptGates
from host.engine.goals.command import goal_command
from host.engine.goals.door import GoalsDoor, mounted
from host.engine.goals.driver import GoalDriver, chain_turn_ended
from host.engine.goals.tools import goal_tools
from host.engine.health import StorageHealth
from host.engine.history import HistoryPage, history_page
from host.engine.history_wire import encode_history
from host.engine.hooks.prompt import prompt_gate
from host.engine.hooks.service import HookService
from host.engine.imported import drop_pending_input, parent_of, rows_with_cwd
from host.engine.journal import Journal
from host.engine.library_door import ModelLibraryDoor
from host.engine.lifecycle import SessionLifecycle
from host.engine.listing import Live, summaries
from host.engine.llm.local_servers import Probe
from host.engine.mcp.door import McpDoor
from host.engine.mcp.service import McpService
from host.engine.media import prompt_blocks
from host.engine.model_status import ModelStatusRelay
from host.engine.pending import PendingTable
from host.engine.permissions.policy import PermissionService
from host.engine.places import WorkspaceMethods
from host.engine.pool import AgentPool
from host.engine.presets.service import PresetService
from host.engine.sandbox import support as sandbox_support
from host.engine.selection import Selections
from host.engine.settings.plane import OPEN_TIMEOUT as SETTINGS_OPEN_TIMEOUT
from host.engine.settings.plane import ConfigPlane
from host.engine.snapshots import Snapshotter
from host.engine.store import ExportRow, SessionExists, SessionHeader, SqliteStore, Store
from host.engine.subagents.door import SubagentDoor
from host.engine.timezones import check_time_zone
from host.engine.titles import export_file_name, normalise
from host.engine.tools.base import Tool
from host.engine.views import page_views
from host.engine.wiring import default_tools
from host.engine.work import AgentWork
from host.engine.workspaces import WorkspaceRegistry

log = logging.getLogger(__name__)


class Engine(
    SessionLifecycle,
    WorkspaceMethods,
    SubagentDoor,
    PresetsDoor,
    ConfigurationDoor,
    ModelLibraryDoor,
    AgentWork,
    FilesDoor,
    GoalsDoor,
    McpDoor,
):
    """Host-side engine. Create with `await Engine.open(data_dir)`; end with `await close()`."""

    def __init__(
        self,
        data_dir: Path,
        store: Store,
        plane: ConfigPlane,
        bus: Bus,
        tools: dict[str, Tool],
        step_cap: int = 25,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.store = store
        self._plane = plane
        self.registry = plane.registry
        self.tools = tools
        self.bus = bus
        self.pending = PendingTable(self.bus)
        self.host_instance_id = ids.host_instance_id()
        self.step_cap = step_cap
        self.default_cwd = os.getcwd()
        self.selections = Selections(plane.settings, plane.registry, plane.overrides)
        self.presets = PresetService(self.data_dir, store, self.bus, tools, plane.default_agent_preset)
        self.permissions = PermissionService(store, bus, plane.default_preset, self.preset_cap, self.data_dir)
        self.presets.commands.register(permission_command(self.permissions))
        self.jobs = self._open_jobs()
        self.prompt_gates = PromptGates()
        """Asked before a turn accepts its opening prompt (the veto seam, host/engine/gates.py)."""
        self.pool = AgentPool(
            store,
            self.bus,
            self.pending,
            self.compose,
            self.registry.get,
            lambda sid, journal: self.current_selection(sid, journal),
            self.permissions,
            self.context_window,
            self.default_cwd,
            step_cap,
            self.job_control,
            self.prompt_gates,
        )
        self.snapshots = Snapshotter(self.data_dir / "snapshots", store, self._snapshot_limits)
        self.pool.snapshots = self.snapshots
        self.changes = SessionChanges(
            store, self.snapshots, self.data_dir, self._header, self.attach, lambda: self.default_cwd
        )
        """The Changes view: files.sessionChanges / revertFile / revertHunk (host/engine/changes.py)."""
        self.health = StorageHealth(store, self.bus, self.pool)
        store.on_settled = self.health.settled
        self._open_subagents()
        self._open_goals()
        self._closed = False
        self.model_status = ModelStatusRelay(self.bus)
        self.workspaces: WorkspaceRegistry
        """Registered project folders and the archive set (loaded by `open`)."""
        self.imports: ArchiveImports
        """Session archives into a workspace (docs/decisions.md, "Import in the app"; set by `open`)."""
        self.folders = HostFolders()
        """The host.* folder service: browse by default, native when `open` gets a picker."""
        self._mcp_approvals = {}
        self.mcp = McpService(
            self.data_dir,
            self.bus,
            trusted=self.project_trusted,
            approvals=lambda: self._mcp_approvals,
            credential=plane.credentials.value,
        )
        self.presets.mcp_tools = self.mcp_session_tools
        self.hooks = HookService(
            self.data_dir, self.project_trusted, self.hook_file_approved, self.hook_dialects
        )
        self.pool.hooks = self.hooks
        # turning a hook dialect on or off changes the hook files mcp.list shows (host/mcp-changed)
        plane.settings.on_change(lambda ns: self.mcp.announce_all() if ns == HOOKS else None)
        self.prompt_gates.add(prompt_gate(self.hooks), frozenset({"user"}), self._hook_files_present)
        self.finder = Finder(self._folder_of, ATTACH_CAP_BYTES)
        """`@` in the composer: finder.find, and what session.prompt's `attach` sends."""

    async def _folder_of(self, session_id: str) -> str:
        return (await self._header(session_id)).cwd or self.default_cwd

    @classmethod
    async def open(
        cls,
        data_dir: Path,
        overrides: RuntimeOverrides | None = None,
        *,
        tools: dict[str, Tool] | None = None,
        step_cap: int = 25,
        picker: NativePicker | None = None,
        settings_timeout: float = SETTINGS_OPEN_TIMEOUT,
        local_probes: tuple[Probe, ...] | None = None,
        download_options: dict[str, Any] | None = None,
        **plane_options: Any,
    ) -> Engine:
        """`plane_options` go to `ConfigPlane` (`adapter_options`, `environ`, `poll_interval`,
        `opener`); `local_probes` replace the well-known ports `llm.discoverLocal` asks, and
        `download_options` go to the downloads' HTTP client (tests). An unknown `--provider`
        raises ModelUnavailable before anything is opened; settings files that cannot be read
        within `settings_timeout` s raise StoreTimeout."""
        data_dir = Path(data_dir)
        bus = Bus()
        folders = HostFolders(picker)
        if "opener" not in plane_options:  # settings.json opens like any host.openPath
            plane_options.update(opener=folders.open, can_open=can_open_path)
        plane = await ConfigPlane.open(data_dir, bus, overrides, bound=settings_timeout, **plane_options)
        plane.check_overrides()
        store = SqliteStore.in_dir(data_dir)
        await store.open()
        plane.start()
        chosen = tools if tools is not None else default_tools()
        engine = cls(data_dir, store, plane, bus, chosen, step_cap)
        engine.workspaces = await WorkspaceRegistry.open(store, engine.bus)
        engine.imports = ArchiveImports(engine.workspaces, engine.import_rows, store.header)
        engine._mcp_store = store
        await engine._load_mcp_approvals()
        await engine._open_library(local_probes, download_options or {})
        engine.folders = folders
        engine.health.start_backups(store.path, data_dir / "backups", fully_checked=store.fully_checked)
        await asyncio.to_thread(sandbox_support)  # probed once, off the loop (it runs bwrap)
        await engine.recover_reverts()  # a revert a crash interrupted: completed or rolled back
        await engine.pool.resume(await store.pending_inbox())  # queued input runs now
        await engine.record_lost_jobs()
        return engine

    async def compose(self, header: SessionHeader, messages: list[Any], cwd: Path) -> Any:
        """A session's composition, with the goal tools where the goal stack is mounted (an engine
        built with no tools at all offers the model none, goal tools included)."""
        composition = await self.presets.compose(header, messages, cwd)
        if self.tools and header.origin is None and mounted(composition.preset.id):
            composition.extra_tools = self.goal_tools
        return composition

    def _open_goals(self) -> None:
        """The goal stack: the continuation driver (idle and turn-end hooks) and `/goal`."""
        self.goals = GoalDriver(self.store, self.prompt_gates, self.pool.get)
        self.pool.idle = self.goals.idle
        earlier = self.pool.turn_ended
        self.pool.turn_ended = chain_turn_ended(earlier, self.goals.turn_ended)
        self.presets.commands.register(goal_command(self.goals))
        self.goal_tools = goal_tools(self.goals)

    async def close(self, bound: float | None = None) -> None:
        """End running turns `aborted {by: disposed}`, cancel pending requests, flush, close;
        give up waiting after `bound` seconds (a SIGTERM exits within 2 s, docs/decisions.md)."""
        if self._closed:
            return
        self._closed = True
        end = time.monotonic() + (bound if bound is not None else 3600.0)
        self.model_status.close()
        if hasattr(self, "downloads"):
            await self.downloads.close()
        await self.health.close()
        await self.pool.dispose_all(end - time.monotonic())
        await self.mcp.close()
        await self.subagents.close()
        await self.jobs.close(end - time.monotonic())
        await self.finder.close()
        self.pending.cancel_all()
        await self.store.close(None if bound is None else max(0.1, end - time.monotonic()))
        await self._plane.aclose()
        self.end_streams()

    def end_streams(self) -> None:
        """End every open stream now (a stop signal: the server need not wait for them)."""
        self.bus.close_all()

    # ---- sessions -------------------------------------------------------------------------

    async def list_sessions(self) -> list[SessionSummary]:
        """Every session, newest activity first; a header that breaks the contract is skipped."""
        live = {
            sid: Live(
                agent.running,
                agent.journal.title,
                agent.composition.preset.id,
                agent.journal.last_seq,
                self.goals.live_values(agent),
            )
            for sid, agent in self._agents.items()
        }
        return summaries(await self.store.sessions(), live)

    async def attach(self, session_id: str) -> Agent:
        """The session's agent, resuming a cold session (concurrent resumes share one load)."""
        self._check_open()
        return await self.pool.attach(session_id)

    @property
    def _agents(self) -> dict[str, Agent]:
        return self.pool.agents

    def attached(self) -> list[str]:
        return list(self._agents)

    # ---- history --------------------------------------------------------------------------

    async def history(
        self, session_id: str, before_seq: int | None = None, max_messages: int = 50
    ) -> tuple[list[SessionEvent], bool, Projections | None]:
        """A page of raw events; a cold session is repaired in memory (nothing written)."""
        page = await self._history_page(session_id, before_seq, max_messages)
        return page.events, page.has_more, page.projections

    async def history_value(
        self, session_id: str, before_seq: int | None = None, max_messages: int = 50
    ) -> HistoryValue:
        """`history` as its wire answer, spliced from the stored JSON (host/engine/history_wire.py)."""
        page = await self._history_page(session_id, before_seq, max_messages)
        return encode_history(page.rows, page.extra, page.has_more, page.projections)

    async def _history_page(self, session_id: str, before_seq: int | None, max_messages: int) -> HistoryPage:
        agent = self._agents.get(session_id)
        cold = None if agent is not None else await self._header(session_id)
        values: dict[str, Any] = {}
        title = agent.journal.title if agent is not None else (cold.title if cold else None)
        if title:
            values["title"] = title
        if before_seq is None and (context := await self.context_projection(session_id, cold)):
            values["context"] = context
        reason = self.pool.failed.get(session_id)  # a turn a store failure cut short
        page = await history_page(self.store, session_id, cold, values, before_seq, max_messages, reason)
        if page.projections is not None:
            projections = page.projections
            projections.values.update(await self.preset_projections(session_id, cold))
            projections.values.update(await self.goal_projection(session_id, cold))
            projections.values[PERMISSIONS_KEY] = (await self.permissions.projection(session_id)).dump()
        return page

    def history_entries(self, events: list[SessionEvent]) -> list[HistoryEntry]:
        """A page's events as history entries, each tool call and result with its view
        (host/engine/views.py: a result finds its call on the same page only)."""
        return [HistoryEntry(event=e, view=v) for e, v in zip(events, page_views(events), strict=True)]

    # ---- input ----------------------------------------------------------------------------

    async def prompt(
        self,
        session_id: str,
        mode: str,
        content: list[PromptContent],
        rpc_id: str,
        client_time_zone: str | None = None,
        attach: Sequence[str] = (),
    ) -> str:
        """Queue or steer user input (with the files and folders `attach` names, read now);
        returns the inbox item id."""
        if client_time_zone is not None:
            check_time_zone(client_time_zone)
        attached = await self.finder.attach(session_id, list(attach)) if attach else []
        await self.health.admit()  # while writes fail: probes now, no waiting out the backoff
        agent = await self.attach(session_id)
        selection = self.current_selection(session_id, agent.journal)
        if self.registry.get(selection.provider) is None:
            raise ModelUnavailable(selection.provider, selection.model)
        blocks = [*self._blocks(content), *attached]
        source = MessageSource(kind="user", rpc_id=rpc_id, client_time_zone=client_time_zone)
        if mode == "steer":
            item = agent.steer(blocks, source)
        elif mode == "queue":
            item = agent.queue(blocks, source)
        else:
            raise AgentBusy(f"unknown prompt mode {mode!r}")
        await self.health.saved(agent.journal, agent.journal.last_seq)  # accepted = on disk
        return item

    def _blocks(self, content: list[PromptContent]) -> list[ContentBlock]:
        return prompt_blocks(content, self.store.put_attachment)

    # ---- titles, forks, search ------------------------------------------------------------

    async def rename(self, session_id: str, title: str) -> tuple[str, int]:
        """Pin a user title; returns (normalised title, its event seq)."""
        await self._header(session_id)
        clean = normalise(title)
        if not clean:
            raise TitleInvalid(session_id, "the title has nothing visible")
        agent = await self.attach(session_id)
        event = agent.journal.append(events.session_title(clean, "user"))
        await self.health.saved(agent.journal, event.seq)
        return clean, event.seq

    async def fork(self, session_id: str, at_seq: int | None = None, restore_files: bool = False) -> str:
        """A child session with the history through the anchor turn, then `session/end-seed`;
        with `restore_files` the files later turns changed are put back too (FilesDoor)."""
        if restore_files:
            return await self.fork_restoring(session_id, at_seq)
        return await self._fork(session_id, at_seq)

    async def _fork(self, session_id: str, at_seq: int | None) -> str:
        self._check_open()
        header = await self._header(session_id)
        parent = self._agents[session_id].journal if session_id in self._agents else None
        selection = self.current_selection(session_id, parent, header)
        child = await fork_session(self.store, header, parent, at_seq)
        self.selections.inherit(child.id, selection)
        await self.permissions.inherit(child.id, session_id)
        await self.store.flush()  # its seed and preset are on disk before anyone sees the child
        self._announce(child)
        workspace_id = self.workspaces.containing(session_id)
        if workspace_id is not None:  # the child joins its source's workspace
            await self.workspaces.attach(workspace_id, child.id)
        return child.id

    async def search(self, query: str) -> tuple[list[tuple[str, str, int]], bool]:
        """(hits as (sessionId, snippet, seq), hasMore); the query is literal text, never syntax."""
        result = await self.store.search(query.strip(), 20)
        return result.hits, result.has_more

    # ---- models ---------------------------------------------------------------------------

    def default_selection(self) -> ModelSelection:
        return self.selections.default()

    def current_selection(
        self, session_id: str, journal: Journal | None = None, header: SessionHeader | None = None
    ) -> ModelSelection:
        """In-process choice, else the newest request/header in the log, else the host default."""
        logged = journal.model if journal is not None else (header.model if header else None)
        if logged is None:  # nothing asked yet: the preset's model, if it names one
            logged = self.preset_model(session_id)
        return self.selections.current(session_id, logged)

    # ---- attachments, export, describe ----------------------------------------------------

    async def has_session(self, session_id: str) -> bool:
        return await self.store.header(session_id) is not None

    async def attachment(self, session_id: str, attachment_id: str) -> tuple[AttachmentRef, bytes]:
        await self._header(session_id)
        found = await self.store.attachment(session_id, attachment_id)
        if found is None:
            raise AttachmentError("the session does not reference that attachment")
        return found

    async def export_file_name(self, session_id: str) -> str:
        """The export's file name: the session's title and date."""
        header = await self._header(session_id)
        agent = self._agents.get(session_id)
        title = agent.journal.title if agent is not None else header.title
        return export_file_name(title, header.updated_at, session_id)

    async def export_rows(self, session_id: str) -> AsyncIterator[ExportRow]:
        """Header, events and referenced attachments, streamed (for the ZIP export)."""
        await self._header(session_id)
        async for row in self.store.export_rows(session_id):
            yield row

    async def import_rows(self, rows: Iterable[ExportRow], cwd: str) -> str:
        """Write an exported session back, working in `cwd` (the importing user's choice: the
        archive's own cwd is never used); SessionConflict when its id exists. A subagent whose
        parent is not here becomes a session of its own (nothing could message it otherwise)."""
        rows = list(rows)
        parent = parent_of(rows)
        has_parent = parent is not None and await self.store.header(parent) is not None
        try:
            sid = await self.store.import_rows(rows_with_cwd(rows, cwd, has_parent))
        except SessionExists as exc:
            existing = await self.store.header(exc.session_id)
            raise SessionConflict(exc.session_id, "", existing.cwd if existing else None) from exc
        await drop_pending_input(self.store, sid)
        self._announce(await self._header(sid))
        return sid

    def describe(self) -> DescribeValue:
        selection = self.default_selection()
        return DescribeValue(
            version=__version__,
            cwd=self.default_cwd,
            home=str(Path.home()),
            provider=selection.provider,
            model=selection.model,
            attached_sessions=len(self._agents),
            can_open_path=can_open_path(),
            host_instance_id=self.host_instance_id,
        )

    # ---- streams --------------------------------------------------------------------------

    def subscribe_mux(self, limit: int | None = None) -> Subscription:
        """`session/subscribed` + pending replays + queue per attached session, then live frames."""
        return self.bus.subscribe("mux", self._mux_snapshot, limit)

    def _mux_snapshot(self) -> Iterable[Item]:
        for sid, agent in self._agents.items():
            yield push(SessionSubscribed(session_id=sid, last_seq=agent.journal.visible_seq))
            yield from self.pending.requests_for(sid)
            yield push(SessionQueue(session_id=sid, items=agent.shown_queue()))
        for sid in self.jobs.sessions():
            yield push(SessionJobs(session_id=sid, jobs=self.jobs.views(sid)))

    def subscribe_host(self, limit: int | None = None) -> Subscription:
        """Live host frames; `host/model-status loading` first while the built-in model loads."""
        return self.bus.subscribe("host", self.model_status.snapshot, limit)

    def respond(self, response: ClientResponse) -> ReceiptAccepted | ReceiptRefused:
        return self.pending.respond(response)
