"""`engine.mcp`: the MCP and hook-approval methods (the door `host/api` uses) and folder trust;
the work is done by `McpService` and the workspace registry (docs/decisions.md, "MCP servers").

Folder trust: a project folder P is trusted when a workspace the person trusted is P, holds P,
or lies inside P (a workspace in a subfolder of a repository trusts that repository's files,
which is what its sessions read). Approvals are `(project, name, digest)` rows.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from contract.mcp import McpListValue, McpServerView
from contract.namespaces import HOOKS, HooksSection
from host.engine.errors import McpServerChanged, McpServerNotFound, SessionNotFound
from host.engine.integrations.hooks import approval as hook_approval
from host.engine.integrations.hooks import config as hook_config
from host.engine.integrations.hooks.config import PROJECT_FILE as HOOKS_PROJECT_FILE
from host.engine.integrations.hooks.config import USER_FILE as HOOKS_USER_FILE
from host.engine.integrations.hooks.service import HookService
from host.engine.integrations.mcp import config as cfg
from host.engine.integrations.mcp.finding import McpResources
from host.engine.integrations.mcp.service import McpService, Project
from host.engine.sandbox import Confinement
from host.engine.sessions.bus import Bus
from host.engine.sessions.project import project_root
from host.engine.settings.configuration import ConfigPlane
from host.engine.store import Store
from host.engine.store import mcp as mcp_tables
from host.engine.tools.base import Tool
from host.engine.workspaces.folders import HostFolders
from host.engine.workspaces.registry import WorkspaceRegistry, now_iso


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Mcp:
    """MCP servers, hook-file approvals and which folders are trusted."""

    def __init__(
        self,
        data_dir: Path,
        bus: Bus,
        store: Store,
        workspaces: WorkspaceRegistry,
        folders: HostFolders,
        plane: ConfigPlane,
        approvals: dict[tuple[str, str], str],
        confinement: Confinement,
    ) -> None:
        self._store = store
        self._workspaces = workspaces
        self._folders = folders
        self._plane = plane
        self._approvals = approvals
        self.servers = McpService(
            data_dir,
            bus,
            trusted=self.project_trusted,
            approvals=lambda: self._approvals,
            credential=plane.credentials.value,
            confinement=confinement,
        )
        """The running servers (the tools a session's composition offers come from here)."""
        self.resources = McpResources(self.servers, self._place)
        """Their resources, for the `@` finder and `attach` (docs/architecture.md, "The @ finder")."""
        self.hooks = HookService(
            data_dir,
            self.project_trusted,
            self.hook_file_approved,
            self.hook_dialects,
            confinement=confinement,
        )
        """The hooks every session's tool calls pass (host/engine/integrations/hooks/)."""

    @classmethod
    async def open(
        cls,
        data_dir: Path,
        bus: Bus,
        store: Store,
        workspaces: WorkspaceRegistry,
        folders: HostFolders,
        plane: ConfigPlane,
        confinement: Confinement,
    ) -> Mcp:
        approvals = await store.call(mcp_tables.read_approvals)
        return cls(data_dir, bus, store, workspaces, folders, plane, approvals, confinement)

    async def close(self) -> None:
        await self.resources.close()
        await self.servers.close()

    def hook_files_present(self) -> bool:
        """Whether any hook file could apply (the user's, or a trusted workspace's): a few stats."""
        dialects = self.hook_dialects()
        for f in hook_config.files(dialects, trusted=True):
            if not f.project:
                base = self.servers.data_dir if f.relative == HOOKS_USER_FILE else Path.home()
                if (base / f.relative).exists():
                    return True
            elif any(os.path.exists(os.path.join(t, f.relative)) for t in self._workspaces.trusted_paths()):
                return True
        return False

    def project_trusted(self, root: Path) -> bool:
        here = self._workspaces.home_of(str(root))  # a worktree is trusted with its checkout
        return any(inside(here, t) or inside(t, here) for t in self._workspaces.trusted_paths())

    async def mcp_session_tools(self, root: Path, cwd: Path) -> dict[str, Tool]:
        """Before a model request: sync the project's servers (waiting for those starting)."""
        await self.servers.sync(root, cwd)
        return self.servers.tools(root)

    async def _place(self, session_id: str) -> tuple[Path, Path, str | None]:
        header = await self._store.header(session_id)
        if header is None or not header.cwd:
            raise SessionNotFound(session_id)
        cwd = Path(await asyncio.to_thread(os.path.realpath, header.cwd))
        root = await asyncio.to_thread(project_root, cwd)
        return cwd, root, self._workspaces.containing(session_id)

    def hook_file_approved(self, root: Path, name: str, digest: str) -> bool:
        return self._approvals.get((str(root), name)) == digest

    def hook_dialects(self) -> frozenset[str]:
        """The opt-in hook dialects the person turned on (settings `hooks`)."""
        section: HooksSection = self._plane.settings.section(HOOKS)
        return frozenset({"claude"} if section.claude_code else set()) | (
            {"codex"} if section.codex else set()
        )

    async def _value(self, project: Project, workspace_id: str | None) -> McpListValue:
        trusted = self.project_trusted(project.root)
        # shown even before trust (reading is not running), so the trust prompt lists its commands
        hook_files = await asyncio.to_thread(
            hook_approval.views, project.root, self.hook_dialects(), self.hook_file_approved
        )
        return McpListValue(
            project=str(project.root),
            workspace_id=workspace_id,
            trusted=trusted,
            servers=self.servers.views(project),
            problems=list(project.config.problems),
            hook_files=hook_files,
        )

    async def hooks_approve(self, workspace_id: str, digest: str) -> tuple[str, str]:
        """Approve the workspace's project hook file whose content the person saw (its sha256)."""
        row = self._workspaces.get(workspace_id)
        root = await asyncio.to_thread(project_root, Path(row.path))
        relative = await asyncio.to_thread(hook_approval.matching, root, self.hook_dialects(), digest)
        if relative is None:
            raise McpServerChanged(hook_approval.approval_name(HOOKS_PROJECT_FILE))
        name = hook_approval.approval_name(relative)
        await self._store.call(
            lambda conn: mcp_tables.write_approval(conn, str(root), name, digest, now_iso())
        )
        await self._store.flush()
        self._approvals[(str(root), name)] = digest
        return str(root / relative), digest

    async def mcp_list(self, session_id: str) -> McpListValue:
        cwd, root, workspace_id = await self._place(session_id)
        project = await self.servers.sync(root, cwd, wait=False)
        return await self._value(project, workspace_id)

    async def mcp_add_editor_servers(self, session_id: str, servers: dict[str, Any]) -> McpListValue:
        """Servers an editor passed for this session (ACP): started now, like the user's own."""
        cwd, root, workspace_id = await self._place(session_id)
        self.servers.add_editor_servers(root, servers, "an editor over ACP")
        project = await self.servers.sync(root, cwd)
        return await self._value(project, workspace_id)

    def _view(self, project: Project, name: str) -> McpServerView:
        for view in self.servers.views(project):
            if view.name == name:
                return view
        raise McpServerNotFound(name, "no such server for this session's project")

    async def mcp_restart(self, session_id: str, name: str) -> McpServerView:
        cwd, root, _ = await self._place(session_id)
        project = await self.servers.sync(root, cwd, wait=False)
        self._view(project, name)
        return self._view(await self.servers.restart(root, cwd, name), name)

    async def mcp_set_enabled(self, session_id: str, name: str, enabled: bool) -> McpServerView:
        cwd, root, _ = await self._place(session_id)
        project = await self.servers.sync(root, cwd, wait=False)
        self._view(project, name)
        return self._view(await self.servers.set_enabled(root, cwd, name, enabled), name)

    async def mcp_approve(self, workspace_id: str, name: str, digest: str | None) -> str:
        """Approve a project server as its entry is now (or as `digest` says the person saw it)."""
        row = self._workspaces.get(workspace_id)
        root = await asyncio.to_thread(project_root, Path(row.path))
        project = await self.servers.sync(root, Path(row.path), wait=False)
        entry = self.servers.entry(project, name)
        if entry is None:
            raise McpServerNotFound(name, f"no such server in {root}")
        if entry.scope != "project":
            raise McpServerNotFound(name, f"a {entry.scope} server needs no approval")
        if digest is not None and digest != entry.digest:
            raise McpServerChanged(name)
        key, chosen = (str(root), name), entry.digest
        await self._store.call(lambda conn: mcp_tables.write_approval(conn, key[0], name, chosen, now_iso()))
        await self._store.flush()
        self._approvals[key] = chosen
        await self.servers.sync(root, Path(row.path), wait=False)
        return chosen

    async def mcp_open_user_file(self) -> str:
        """The person's own servers: `<data dir>/mcp.json` in their editor (created empty first)."""
        path = self.servers.data_dir / cfg.USER_FILE
        await asyncio.to_thread(cfg.ensure_user_file, path)
        await self._folders.open(str(path))
        return str(path)
