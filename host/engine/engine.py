"""The `Engine` the ApiProxy calls: a set of services, one per concern, built by `open()`.

Callers name the service: `engine.sessions.fork(...)`, `engine.files.revert_turn(...)` (the table
of services is in docs/architecture.md, "The engine"). Methods return plain results or raise the
typed exceptions of `host.engine.errors`, which the API layer maps to RpcError codes. Everything
runs on one asyncio loop; disk work happens on the store's writer thread.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from contract.content import Message
from contract.finder import ATTACH_CAP_BYTES
from contract.namespaces import HOOKS, LSP, PERMISSION, SESSIONS, WEB
from host.engine.agent.agent import Agent
from host.engine.agent.attention import Attention
from host.engine.agent.commands.permission import permission_command
from host.engine.agent.goals.command import goal_command
from host.engine.agent.goals.driver import GoalDriver
from host.engine.agent.goals.tools import goal_tools
from host.engine.agent.model_choice import ModelChoice
from host.engine.agent.pending import PendingTable
from host.engine.agent.pool import AgentPool
from host.engine.agent.presets import PresetService
from host.engine.agent.prompt_gates import PromptGates
from host.engine.agent.prompt_hooks import prompt_gate
from host.engine.agent.slots import TurnSlots
from host.engine.agent.subagents import SubagentTracker
from host.engine.automations.clock import Clock
from host.engine.automations.runs import Drive
from host.engine.automations.service import Automations
from host.engine.files.git.commits import RepoCommits
from host.engine.files.git.runner import FolderGit, PersonGit
from host.engine.files.review import Review
from host.engine.files.snapshots import Snapshotter
from host.engine.integrations.lsp.manager import LanguageServers
from host.engine.llm.local_servers import Probe
from host.engine.llm.localmodels.library import ModelLibrary
from host.engine.llm.model_status import ModelStatusRelay
from host.engine.llm.overrides import RuntimeOverrides
from host.engine.llm.registry import AdapterRegistry
from host.engine.presets.composition import Composition
from host.engine.presets.goal_mounting import mounted
from host.engine.sandbox import Confinement
from host.engine.sandbox import support as sandbox_support
from host.engine.services.agents import Agents
from host.engine.services.changes import SessionChanges
from host.engine.services.commits import Commits
from host.engine.services.config import Configuration
from host.engine.services.file_tree import FileTree
from host.engine.services.files import Files, snapshot_limits
from host.engine.services.finder import Finder
from host.engine.services.forks import Forks
from host.engine.services.goals import Goals
from host.engine.services.health import StorageHealth
from host.engine.services.host import HostSurface
from host.engine.services.imports import ArchiveImports
from host.engine.services.jobs import Jobs
from host.engine.services.library import Library, installed_files
from host.engine.services.mcp import Mcp
from host.engine.services.presets import Presets, preset_cap
from host.engine.services.reach import AgentReach, ModelImages
from host.engine.services.remotes import Remotes
from host.engine.services.sessions import Sessions
from host.engine.services.subagents import Subagents
from host.engine.services.terminals import Terminals
from host.engine.services.workspaces import Workspaces
from host.engine.sessions.bus import Bus
from host.engine.sessions.lookup import announce as announce_added
from host.engine.sessions.lookup import existing_header
from host.engine.sessions.media import prompt_blocks
from host.engine.sessions.removals import follow_removals
from host.engine.settings.configuration import OPEN_TIMEOUT as SETTINGS_OPEN_TIMEOUT
from host.engine.settings.configuration import ConfigPlane
from host.engine.settings.selection import Selections
from host.engine.store import SessionHeader, SqliteStore, Store
from host.engine.tools.base import Tool
from host.engine.tools.defaults import default_tools
from host.engine.tools.permissions.policy import PermissionService
from host.engine.tools.web_access.access import WebAccess
from host.engine.workspaces.folders import HostFolders, NativePicker, can_open_path
from host.engine.workspaces.registry import WorkspaceRegistry
from host.engine.workspaces.remotes.handover import handover_of
from host.engine.workspaces.worktrees.rows import WorktreeRows
from host.engine.workspaces.worktrees.service import Worktrees

PROJECT_SOURCE = Path(__file__).resolve().parents[2]
"""The folder holding the project's packages, for the wheel a remote host gets."""


@dataclass(frozen=True, eq=False)
class Parts:
    """The engine's own parts, for the engine and its tests; `host/api` and `desktop/` never
    touch them (tests/test_layering.py)."""

    data_dir: Path
    store: Store
    bus: Bus
    pending: PendingTable
    pool: AgentPool
    permissions: PermissionService
    prompt_gates: PromptGates
    """Asked before a turn accepts its opening prompt (the veto seam, host/engine/agent/prompt_gates.py)."""
    registry: AdapterRegistry
    tools: dict[str, Tool]
    plane: ConfigPlane
    model_status: ModelStatusRelay
    followers: tuple[asyncio.Task[None], ...] = ()
    """Tasks that live as long as the engine (what ends with a deleted session)."""


@dataclass(frozen=True, eq=False)
class Engine:
    """Host-side engine. Create with `await Engine.open(data_dir)`; end with `await close()`."""

    sessions: Sessions
    agents: Agents
    config: Configuration
    presets: Presets
    library: Library
    workspaces: Workspaces
    files: Files
    subagents: Subagents
    jobs: Jobs
    goals: Goals
    mcp: Mcp
    health: StorageHealth
    host: HostSurface
    changes: SessionChanges
    """The Changes view: files.sessionChanges / revertFile / revertHunk (host/engine/services/changes.py)."""
    finder: Finder
    """`@` in the composer: finder.find, and what session.prompt's `attach` sends."""
    imports: ArchiveImports
    """Session archives into a workspace (docs/decisions.md, "Import in the app")."""
    reach: AgentReach
    """The web, images and language servers the tools reach (`lsp.status`)."""
    worktrees: Worktrees
    """Sessions in git worktrees and their hand-off (docs/decisions.md, "Worktree sessions")."""
    remotes: Remotes
    """Remote hosts over SSH (docs/decisions.md, "Remote hosts")."""
    terminals: Terminals
    """The person's shells beside a session: terminal.* (docs/decisions.md, "Terminal and files")."""
    file_tree: FileTree
    """The Files pane: files.tree / files.read and the folder's watch."""
    automations: Automations
    """Prompts that run by themselves, and the inbox of their runs (docs/decisions/automations.md)."""
    commits: Commits
    """The commit box: git.draftMessage/commit/log/push/pullRequest (docs/decisions/commit-and-push.md)."""
    parts: Parts
    # the review pane (docs/decisions/review-pane.md)
    review: Review
    """git.status / stage / unstage / discard / undoDiscard (host/engine/files/review.py)."""

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
        masked: tuple[Path, ...] = (),
        on_network_sandbox: Callable[[], None] | None = None,
        automation_clock: Clock | None = None,
        **plane_options: Any,
    ) -> Engine:
        """`plane_options` go to `ConfigPlane` (`adapter_options`, `environ`, `poll_interval`,
        `opener`); `local_probes` replace the well-known ports `llm.discoverLocal` asks, and
        `download_options` go to the downloads' HTTP client (tests). An unknown `--provider`
        raises ModelUnavailable before anything is opened; settings files that cannot be read
        within `settings_timeout` s raise StoreTimeout. `masked`: more paths every sandbox hides
        (what the command line named); `on_network_sandbox`: told before a sandbox with network
        starts (the loopback fence's `SandboxPeers.expect`): docs/threat-model.md. `automation_clock`:
        the automations' clock (tests move time)."""
        # Built in dependency order: each part from parts built before it. Where a part built
        # later must be told by one built earlier, it registers with it right after it is built
        # (`pool.on_turn_ended`, `pending.on_counted`, `store.on_settled`); nothing is set on a
        # part from outside (docs/architecture.md, "The engine"; tests/test_service_shape.py).
        data_dir = Path(data_dir)
        confinement = (
            Confinement(data_dir, tuple(masked))
            if on_network_sandbox is None
            else Confinement(data_dir, tuple(masked), on_network_sandbox)
        )
        bus = Bus()
        folders = HostFolders(picker)
        if "opener" not in plane_options:  # settings.json opens like any host.openPath
            plane_options.update(opener=folders.open, can_open=can_open_path)
        model_library = ModelLibrary(data_dir)  # read by `Library.open`; the settings list its models
        installed = partial(installed_files, model_library)
        plane = await ConfigPlane.open(
            data_dir, bus, overrides, bound=settings_timeout, installed=installed, **plane_options
        )
        plane.check_overrides()
        store = SqliteStore.in_dir(data_dir)
        await store.open()
        plane.start()
        default_cwd = os.getcwd()
        selections = Selections(plane.settings, plane.registry, plane.overrides)
        # the lookups most services start with, bound once (host/engine/sessions/lookup.py)
        header = partial(existing_header, store)
        announce = partial(announce_added, bus)
        blocks = partial(prompt_blocks, put=store.put_attachment)
        # the attached agents: the pool fills this map, the parts built before it look up in it
        live: dict[str, Agent] = {}
        models = ModelChoice(selections, plane.registry, live.get)

        def reads_images(session_id: str) -> bool:
            agent = live.get(session_id)
            selection = selections.current(session_id, agent.journal.model if agent is not None else None)
            return plane.registry.accepts_images(selection.provider, selection.model)

        reach = AgentReach(
            WebAccess(lambda: plane.settings.section(WEB), plane.credentials.value),
            ModelImages(reads_images, store.put_attachment),
            LanguageServers(confinement, lambda: plane.settings.section(LSP).disabled),
        )
        chosen = tools if tools is not None else default_tools(reach.tools)
        worktree_rows = await WorktreeRows.open(store)  # asked by the registry and the sandbox
        registry = await WorkspaceRegistry.open(store, bus, worktree_rows.home_of)
        mcp = await Mcp.open(data_dir, bus, store, registry, folders, plane, confinement)
        attention = Attention(bus)
        tracker = SubagentTracker()
        pending = PendingTable(bus, attention.pending, tracker.route)
        slots = TurnSlots(lambda: plane.settings.section(SESSIONS).max_running_turns, attention.waiting)
        plane.settings.on_change(lambda ns: slots.settle() if ns == SESSIONS else None)

        async def folder_of(session_id: str) -> str:
            return (await header(session_id)).cwd or default_cwd

        finder = Finder(folder_of, ATTACH_CAP_BYTES, mcp.resources)
        preset_service = PresetService(
            data_dir, store, bus, chosen, plane.default_agent_preset, mcp_tools=mcp.mcp_session_tools
        )
        permissions = PermissionService(
            store,
            bus,
            plane.default_preset,
            partial(preset_cap, store, preset_service.roster),
            worktree_rows.binds_for,
            confinement=confinement,
            patterns=lambda: plane.settings.section(PERMISSION).rules,
        )
        preset_service.commands.register(permission_command(permissions))
        jobs = Jobs(data_dir, bus, header, live.get)
        gates = PromptGates()
        driver = GoalDriver(store, gates, live.get)
        preset_service.commands.register(goal_command(driver))
        extra_tools = goal_tools(driver)

        async def compose(session: SessionHeader, messages: list[Message], cwd: Path) -> Composition:
            """A session's composition, with the goal tools where the goal stack is mounted (an
            engine built with no tools at all offers the model none, goal tools included)."""
            composition = await preset_service.compose(session, messages, cwd)
            if chosen and session.origin is None and mounted(composition.preset.id):
                composition.extra_tools = extra_tools
            return composition

        limits = partial(snapshot_limits, plane)
        snapshots = Snapshotter(data_dir / "snapshots", store, limits)
        pool = AgentPool(
            store,
            bus,
            pending,
            compose,
            plane.registry.get,
            models.current,
            permissions,
            models.context_window,
            default_cwd,
            step_cap,
            jobs.control,
            gates,
            agents=live,
            snapshots=snapshots,
            hooks=mcp.hooks,
            idle=driver.idle,
            slots=slots,
            attention=attention,
        )
        pool.on_loaded(tracker.loaded)
        forks = Forks(
            store,
            header,
            live.get,
            pool.check_open,
            models.current,
            selections,
            announce,
            permissions,
            registry,
        )
        files = Files(
            data_dir,
            default_cwd,
            store,
            header,
            pool.attach,
            snapshots,
            limits,
            forks.fork,
            FolderGit(confinement),
            mcp.project_trusted,
        )
        goals = Goals(store, pool.attach, driver)

        async def last_seq(session_id: str) -> int:
            agent = live.get(session_id)
            return agent.journal.last_seq if agent is not None else (await header(session_id)).last_seq

        async def session_folders() -> list[tuple[str, str | None]]:
            return [(row.id, row.cwd) for row in await store.sessions()]

        worktrees = Worktrees(
            data_dir,
            confinement,
            worktree_rows,
            FolderGit(confinement),
            mcp.project_trusted,
            bus,
            header=header,
            last_seq=last_seq,
            set_cwd=store.set_cwd,
            release=pool.release,
            session_folders=session_folders,
            workspace_folder=lambda wid: registry.get(wid).path,
            workspace_of_folder=registry.workspace_at,
            workspace_of_session=registry.containing,
        )
        gates.add(worktrees.gate, frozenset({"user", "goal"}), worktrees.setups.active)
        health = StorageHealth(store, bus, pool)
        store.on_settled(health.settled)
        agents = Agents(pool, store, header, models, plane.registry.get, blocks, health, finder)
        presets = Presets(pool, store, header, default_cwd, preset_service, permissions, plane, folders)
        sessions = Sessions(
            pool,
            store,
            bus,
            header,
            announce,
            selections,
            default_cwd,
            health=health,
            permissions=permissions,
            workspaces=registry,
            presets=presets,
            agents=agents,
            goals=goals,
            jobs=jobs,
            fork=forks.fork,
            fork_restoring=files.fork_restoring,
            attention=attention,
            worktrees=worktrees,
        )
        subagents = Subagents(
            pool,
            store,
            tracker,
            models,
            selections,
            announce,
            blocks,
            preset_service,
            permissions,
            sessions.history,
            finder,
        )
        # the agents' turns reach the parts built on the pool: the subagents (a `task` call and a
        # child's answer), the goal driver, the worktrees; the automations below
        pool.serve_subagents(subagents.control_for)
        pool.on_turn_ended(subagents.turn_ended)
        pool.on_turn_ended(driver.turn_ended)
        pool.on_turn_ended(lambda agent, *_: worktrees.turn_ended(agent.cwd))
        model_status = ModelStatusRelay(bus)
        # turning a hook dialect on or off changes the hook files mcp.list shows (host/mcp-changed)
        plane.settings.on_change(lambda ns: mcp.servers.announce_all() if ns == HOOKS else None)
        plane.settings.on_change(lambda ns: reach.settings_changed() if ns == LSP else None)
        gates.add(prompt_gate(mcp.hooks), frozenset({"user"}), mcp.hook_files_present)
        library = await Library.open(model_library, bus, plane, local_probes, download_options or {})
        health.start_backups(store.path, data_dir / "backups", fully_checked=store.fully_checked)
        changes = SessionChanges(store, snapshots, data_dir, header, pool.attach, lambda: default_cwd)

        def to_mux(frame: BaseModel, weight: int = 0) -> None:
            bus.publish("mux", frame, weight=weight)

        # the review pane (docs/decisions/review-pane.md)
        def worktree_of(folder: str) -> tuple[str, str] | None:
            row = worktree_rows.of(os.path.realpath(folder))
            return (row.base, row.local) if row is not None else None

        review = Review(
            FolderGit(confinement),
            mcp.project_trusted,
            folder_of,
            changes.changed_paths,
            changes.last_turn_paths,
            worktree_of,
            data_dir,
        )
        terminals = Terminals(folder_of, to_mux, lambda: bus.unread_weight("mux"))
        file_tree = FileTree(
            folder_of, FolderGit(confinement), mcp.project_trusted, changes.changed_paths, to_mux
        )
        config = Configuration(
            pool, store, header, models, selections, plane.registry, plane, permissions, presets.follow_model
        )

        async def changed_files(session_id: str) -> int:
            return len(await changes.changed_paths(session_id))

        async def discard_run(session_id: str) -> None:
            if worktrees.state_of((await header(session_id)).cwd) is not None:
                await worktrees.remove(session_id, False, True)  # the run's worktree and branch go
            await sessions.delete_session(session_id)

        automations = Automations(
            store,
            Drive(
                create_session=lambda cwd, sid, preset, wt: sessions.create_session(
                    cwd, sid, preset, None, None, wt
                ),
                rename=sessions.rename,
                set_permission=lambda sid, preset: config.set_permission(sid, preset, None),
                select_model=lambda sid, provider, model: config.select_model(sid, provider, model, None),
                inject=lambda sid, text: agents.inject(sid, text, "automation"),
                prompt=lambda sid, content, rpc_id, zone, attach: agents.prompt(
                    sid, "queue", content, rpc_id, zone, attach
                ),
                agent=pool.get,
                asking=lambda sid: len(pending.requests_for(sid)),
                changed_files=changed_files,
                discard=discard_run,
                exists=sessions.has_session,
                pause_after_minutes=lambda: plane.settings.section(SESSIONS).automation_pause_minutes,
            ),
            automation_clock,
        )
        pool.on_turn_ended(automations.turn_ended)
        pending.on_counted(lambda session_id, count: automations.wake())  # a waiting run says so now

        # commit, log, push, pull request (docs/decisions/commit-and-push.md)
        def selection_of(session_id: str, session: SessionHeader) -> Any:
            agent = live.get(session_id)
            return models.current(session_id, agent.journal if agent is not None else None, session)

        def base_of(folder: str) -> str | None:
            row = worktree_rows.of(folder)
            return row.base if row is not None else None

        commits = Commits(
            store,
            plane.registry,
            header,
            lambda: default_cwd,
            selection_of,
            RepoCommits(FolderGit(confinement), PersonGit()),
            mcp.project_trusted,
            worktree_rows.binds_for,
            base_of,
            changes.turns_by_path,
        )
        followers = (
            asyncio.create_task(follow_removals(bus, terminals.session_removed, file_tree.session_removed)),
        )
        parts = Parts(
            data_dir,
            store,
            bus,
            pending,
            pool,
            permissions,
            gates,
            plane.registry,
            chosen,
            plane,
            model_status,
            followers,
        )
        engine = cls(
            sessions=sessions,
            agents=agents,
            config=config,
            presets=presets,
            library=library,
            workspaces=Workspaces(registry, folders, mcp.servers.refresh_all, plane.editor),
            files=files,
            subagents=subagents,
            jobs=jobs,
            goals=goals,
            mcp=mcp,
            health=health,
            host=HostSurface(
                bus, pending, live, selections, default_cwd, jobs, model_status, plane.default_preset
            ),
            changes=changes,
            finder=finder,
            imports=ArchiveImports(registry, sessions.import_rows, store.header),
            reach=reach,
            worktrees=worktrees,
            remotes=Remotes(
                data_dir,
                bus.publish,
                partial(handover_of, plane),
                lambda: bus.subscribers("host") > 0,
                PROJECT_SOURCE,
            ),
            terminals=terminals,
            file_tree=file_tree,
            automations=automations,
            commits=commits,
            parts=parts,
            review=review,
        )
        await asyncio.to_thread(sandbox_support)  # probed once, off the loop (it runs bwrap)
        await files.recover_reverts()  # a revert a crash interrupted: completed or rolled back
        await review.recover()  # a discard a crash interrupted: finished or rolled back
        await worktrees.recover()  # a hand-off a crash interrupted; prune; unused worktrees go
        await pool.resume(await store.pending_inbox())  # queued input runs now
        await jobs.record_lost_jobs(pool.attach)
        await automations.open()  # after the resume: a run that took up its input again is watched
        await engine.remotes.start()
        return engine

    async def close(self, bound: float | None = None) -> None:
        """End running turns `aborted {by: disposed}`, cancel pending requests, flush, close;
        give up waiting after `bound` seconds (a SIGTERM exits within 2 s, docs/decisions.md)."""
        parts = self.parts
        if parts.pool.closing:
            return
        parts.pool.shut()
        end = time.monotonic() + (bound if bound is not None else 3600.0)
        parts.model_status.close()
        await self.automations.close()  # no run starts while the engine closes
        await self.terminals.close_all()  # the person's shells end with the host
        await self.file_tree.close()
        await self.library.close()
        await self.remotes.close()
        await self.health.close()
        await parts.pool.dispose_all(end - time.monotonic())
        await self.mcp.close()
        await self.subagents.close()
        await self.jobs.close(end - time.monotonic())
        await self.finder.close()
        await self.reach.close()
        await self.worktrees.close()
        parts.pending.cancel_all()
        await parts.store.close(None if bound is None else max(0.1, end - time.monotonic()))
        await parts.plane.aclose()
        self.host.end_streams()
        for task in parts.followers:
            task.cancel()
