"""The host's MCP servers: one connection per (project, server), shared by that project's
sessions, started only when allowed (docs/decisions.md, "MCP servers").

A project's servers come from its config (`config.load`); each is in one state: `disabled` (the
person turned it off), `needs-trust` (a project server in a folder not trusted), `needs-approval`
(trusted, but this exact entry was never approved), then `starting` / `ready` / `failed` /
`stopped` once it may run. Nothing a project brings is read into a command before both steps:
the project's files are parsed for display only. Every change is announced as
`host/mcp-changed {project}`; status never enters a session's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contract.mcp import HostMcpChanged, McpServerView, McpToolView
from host.engine.integrations.mcp import config as cfg
from host.engine.integrations.mcp.config import McpConfig, MissingValue, ServerEntry
from host.engine.integrations.mcp.connection import McpConnection
from host.engine.integrations.mcp.tool import McpTool
from host.engine.sandbox import Confinement, secret_values
from host.engine.sessions.bus import Bus
from host.engine.tools.base import Tool

log = logging.getLogger(__name__)

STDERR_SHOWN = 4096

Approvals = Callable[[], Mapping[tuple[str, str], str]]


@dataclass
class Project:
    root: Path
    config: McpConfig = field(default_factory=McpConfig)
    connections: dict[str, McpConnection] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    joinable: asyncio.Future[list[McpConnection]] | None = None
    """The sync not yet begun (waiting for `lock`): a caller arriving now shares it, since it will
    read the config after the caller came."""


class _LeaderGone(Exception):
    """The caller running a shared sync was cancelled before it began: the others run their own."""


class McpService:
    def __init__(
        self,
        data_dir: Path,
        bus: Bus,
        *,
        trusted: Callable[[Path], bool],
        approvals: Approvals,
        credential: Callable[[str], str | None],
        confinement: Confinement,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self._confinement = confinement
        """What the stdio servers' sandbox hides (host/engine/sandbox/policy.py)."""
        self._bus = bus
        self._trusted = trusted
        self._approvals = approvals
        self._credential = _remembering(credential)
        self._environ = environ if environ is not None else os.environ
        self._projects: dict[str, Project] = {}
        self._editor: dict[str, dict[str, ServerEntry]] = {}
        """Servers editors passed over ACP, per project root (the person's own, like user ones)."""
        self._closed = False

    # ---- what a session sees ----------------------------------------------------------------

    def _project(self, root: Path) -> Project:
        key = str(root)
        if key not in self._projects:
            self._projects[key] = Project(root)
        return self._projects[key]

    def state(self, project: Project, entry: ServerEntry) -> str:
        if entry.error is not None:
            return "failed"
        if entry.name in project.config.disabled:
            return "disabled"
        if not entry.trusted_source:
            if not self._trusted(project.root):
                return "needs-trust"
            if self._approvals().get((str(project.root), entry.name)) != entry.digest:
                return "needs-approval"
        live = project.connections.get(entry.name)
        if live is None or live.entry.digest != entry.digest:
            return "stopped"
        return live.state

    async def sync(self, root: Path, cwd: Path, *, wait: bool = True) -> Project:
        """Read the project's config again and make the running set match it: start what may
        run and is not running, stop what changed, went away or may no longer run. With `wait`,
        until each starting server is ready or failed (its own start-up timeout bounds it).

        Callers that arrive while a sync waits for the project's lock share it: it reads the
        config after all of them came. Twenty sessions starting a turn at once make one or two
        syncs, not twenty in a row (docs/decisions/reads-wait-on-their-thread.md)."""
        project = self._project(root)
        while True:
            shared = project.joinable
            if shared is None:
                starting = await self._lead(project, cwd)
                break
            try:
                starting = await asyncio.shield(shared)
                break
            except _LeaderGone:
                continue
        if wait:
            await asyncio.gather(*(c.wait_settled(c.entry.startup_timeout + 1) for c in starting))
        return project

    async def _lead(self, project: Project, cwd: Path) -> list[McpConnection]:
        """Run one sync for every caller that joins it before it begins."""
        fut: asyncio.Future[list[McpConnection]] = asyncio.get_running_loop().create_future()
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())  # joiners may be none
        project.joinable = fut
        try:
            async with project.lock:
                if project.joinable is fut:
                    project.joinable = None  # the config is read from here on: later callers wait
                starting = await self._reconcile(project, cwd)
        except asyncio.CancelledError:
            fut.set_exception(_LeaderGone())
            raise
        except BaseException as exc:
            fut.set_exception(exc)
            raise
        finally:
            if project.joinable is fut:
                project.joinable = None
        fut.set_result(starting)
        return starting

    async def _reconcile(self, project: Project, cwd: Path) -> list[McpConnection]:
        """Under the project's lock: the config read again, the running set made to match it;
        returns the connections it started."""
        project.config = await asyncio.to_thread(cfg.load, self.data_dir, project.root)
        project.config.servers.update(self._editor.get(str(project.root), {}))
        changed = False
        for name, live in list(project.connections.items()):
            entry = project.config.servers.get(name)
            allowed = entry is not None and self.state(project, entry) not in (
                "disabled",
                "needs-trust",
                "needs-approval",
            )
            if not allowed or entry is None or entry.digest != live.entry.digest:
                project.connections.pop(name)
                await live.stop()
                changed = True
        starting: list[McpConnection] = []
        for entry in project.config.servers.values():
            if self._closed or self.state(project, entry) != "stopped" or entry.name in project.connections:
                continue
            started = self._connect(project, entry, cwd)
            if started is not None:
                starting.append(started)
            changed = True
        if changed:
            self._announce(project)
        return starting

    def _connect(self, project: Project, entry: ServerEntry, cwd: Path) -> McpConnection | None:
        try:
            expanded = cfg.expanded(entry, self._environ, self._credential)
        except MissingValue as exc:
            failed = McpConnection(
                entry,
                cfg.Expanded("", [], {}, "", {}),
                cwd,
                self._changed,
                workspace=project.root,
                confinement=self._confinement,
            )
            failed.state, failed.error = "failed", str(exc)
            project.connections[entry.name] = failed
            return None
        run_in = (
            Path(entry.cwd) if entry.cwd and os.path.isabs(entry.cwd) else project.root / (entry.cwd or "")
        )
        if entry.scope != "project" and not entry.cwd:
            run_in = cwd
        live = McpConnection(
            entry, expanded, run_in, self._changed, workspace=project.root, confinement=self._confinement
        )
        project.connections[entry.name] = live
        live.start()
        return live

    def ready(self, root: Path) -> list[tuple[str, McpConnection]]:
        """The project's servers that are ready and still allowed (enabled, trusted, approved)."""
        project = self._projects.get(str(root))
        out: list[tuple[str, McpConnection]] = []
        if project is None:
            return out
        for name, live in project.connections.items():
            entry = project.config.servers.get(name)
            if live.state == "ready" and entry is not None and self.state(project, entry) == "ready":
                out.append((name, live))
        return out

    def state_of(self, root: Path, name: str) -> str | None:
        """A server's state in the project (None: no such server)."""
        project = self._projects.get(str(root))
        entry = project.config.servers.get(name) if project else None
        return self.state(project, entry) if project and entry else None

    def starting(self, root: Path) -> list[McpConnection]:
        project = self._projects.get(str(root))
        return [c for c in project.connections.values() if c.state == "starting"] if project else []

    def tools(self, root: Path) -> dict[str, Tool]:
        """The tools of the project's ready servers, by public name."""
        out: dict[str, Tool] = {}
        for name, live in self.ready(root):
            for info in live.tools:
                tool = McpTool(name, info, live)
                out[tool.name] = tool
        return out

    def views(self, project: Project) -> list[McpServerView]:
        views = []
        for entry in project.config.servers.values():
            state = self.state(project, entry)
            live = project.connections.get(entry.name)
            if live is not None and live.entry.digest != entry.digest:
                live = None
            error = entry.error or (live.error if live is not None else None)
            tail = live.stderr_tail() if live is not None and state == "failed" else None
            tools = []
            if live is not None and state == "ready":
                for info in live.tools:
                    tools.append(
                        McpToolView(
                            name=McpTool(entry.name, info, live).name,
                            raw_name=info.raw_name,
                            title=info.title,
                            description=info.description[:500],
                            read_only_hint=info.read_only,
                        )
                    )
            views.append(
                McpServerView(
                    name=entry.name,
                    scope=entry.scope,
                    transport=entry.transport,
                    state=state,  # type: ignore[arg-type]
                    command_line=entry.command_line(),
                    source=entry.source,
                    digest=entry.digest,
                    enabled=entry.name not in project.config.disabled,
                    network=entry.network if entry.transport == "stdio" else True,
                    sandboxed=bool(live and live.sandboxed),
                    tools=tools,
                    error=secret_values.redact(error) if error else None,
                    stderr_tail=secret_values.redact(tail[-STDERR_SHOWN:]) if tail else None,
                    server_info=live.server_info if live is not None else None,
                    warnings=list(entry.warnings),
                )
            )
        return sorted(views, key=lambda v: (v.scope != "project", v.name))

    # ---- the person's actions ---------------------------------------------------------------

    def add_editor_servers(self, root: Path, raw: dict[str, Any], source: str) -> None:
        """An editor's servers for this project (a name already taken by an editor is replaced)."""
        parsed = {name: cfg.parse_entry(name, entry, "editor", source) for name, entry in raw.items()}
        self._editor.setdefault(str(root), {}).update(parsed)

    async def restart(self, root: Path, cwd: Path, name: str) -> Project:
        project = self._project(root)
        async with project.lock:
            live = project.connections.pop(name, None)
            if live is not None:
                await live.stop()
        return await self.sync(root, cwd)

    async def set_enabled(self, root: Path, cwd: Path, name: str, enabled: bool) -> Project:
        await asyncio.to_thread(cfg.write_disabled, self.data_dir, str(root), name, enabled)
        project = await self.sync(root, cwd, wait=False)
        self._announce(project)
        return project

    async def refresh_all(self) -> None:
        """Trust or an approval changed: every known project syncs (starting or stopping)."""
        for project in list(self._projects.values()):
            await self.sync(project.root, project.root, wait=False)
            self._announce(project)

    def announce_all(self) -> None:
        """Something shown beside the servers changed (the hook dialects): every project re-lists."""
        for project in list(self._projects.values()):
            self._announce(project)

    def _changed(self, live: McpConnection) -> None:
        for project in self._projects.values():
            if project.connections.get(live.entry.name) is live:
                self._announce(project)

    def _announce(self, project: Project) -> None:
        if not self._closed:
            self._bus.publish("host", HostMcpChanged(project=str(project.root)))

    async def close(self) -> None:
        self._closed = True
        lives = [c for p in self._projects.values() for c in p.connections.values()]
        with contextlib.suppress(Exception):
            await asyncio.gather(*(c.stop() for c in lives), return_exceptions=True)

    def entry(self, project: Project, name: str) -> ServerEntry | None:
        return project.config.servers.get(name)


def _remembering(credential: Callable[[str], str | None]) -> Callable[[str], str | None]:
    """A credential that reaches a server is a known secret: redacted from its stderr and errors."""

    def value(ref: str) -> str | None:
        found = credential(ref)
        secret_values.remember(found)
        return found

    return value
