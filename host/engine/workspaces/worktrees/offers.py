"""What New session offers for a folder, a workspace's worktree settings, and the worktrees'
disk use (docs/decisions.md, "Worktree sessions"): `worktree.options`, `worktree.configure` and
`worktree.spaceUsed` behind `engine.worktrees`."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contract.worktrees import (
    ExistingWorktree,
    WorktreeOptionsValue,
    WorktreeSettingsView,
    WorktreeSpace,
    WorktreeSpaceValue,
)
from host.engine.errors import WorktreeFailed, WorktreeUntrusted
from host.engine.files import safe_io as files
from host.engine.files.git import layout as repo_layout
from host.engine.sandbox import support
from host.engine.store.worktrees import WorkspaceWorktreeSettings
from host.engine.workspaces.worktrees.gitops import RepoGit
from host.engine.workspaces.worktrees.layout import inside
from host.engine.workspaces.worktrees.making import spot
from host.engine.workspaces.worktrees.rows import WorktreeRows


class Offers:
    def __init__(
        self,
        rows: WorktreeRows,
        git: RepoGit,
        workspace_folder: Callable[[str], str],
        workspace_of_folder: Callable[[str], str | None],
    ) -> None:
        self.rows = rows
        self._git = git
        self._workspace_folder = workspace_folder
        self._workspace_of_folder = workspace_of_folder

    async def options(self, workspace_id: str | None, cwd: str | None) -> WorktreeOptionsValue:
        folder = self._workspace_folder(workspace_id) if workspace_id else cwd or ""
        settings = self._settings_view(workspace_id or self._workspace_of_folder(folder))
        found = await asyncio.to_thread(spot, folder)
        if found is None:
            return WorktreeOptionsValue(repository=False, settings=settings)
        local = found.layout
        value = WorktreeOptionsValue(
            repository=True, top=found.top, current_branch=repo_layout.branch(local), settings=settings
        )
        try:
            await self._git.check(local, Path(found.top))
            value.branches = await self._git.branches(local)
            listed = await self._git.worktrees(local)
            reals = await asyncio.to_thread(lambda: [os.path.realpath(p) for p, _ in listed])
            value.worktrees = [
                ExistingWorktree(path=real, branch=b, owned=bool((r := self.rows.at(real)) and r.owned))
                for real, (_, b) in list(zip(reals, listed, strict=True))[1:]
            ]
            value.local_changes = len(await self._git.status(local))
        except WorktreeUntrusted:
            value.withheld = "no-sandbox" if not support().available else "untrusted-config"
        return value

    def _settings_view(self, workspace_id: str | None) -> WorktreeSettingsView:
        s = self.rows.settings_of(workspace_id)
        return WorktreeSettingsView(enabled=s.enabled, location=s.location, copy_files=s.copy, setup=s.setup)

    async def configure(self, workspace_id: str, changes: dict[str, Any]) -> WorktreeSettingsView:
        """Change a workspace's worktree settings (keys of `WorktreeSettingsView`, snake_case;
        `location` None clears it)."""
        folder = self._workspace_folder(workspace_id)
        now = self.rows.settings_of(workspace_id)
        wanted: str | None = changes.get("location", now.location)
        location = (
            await asyncio.to_thread(lambda: os.path.realpath(os.path.expanduser(wanted))) if wanted else None
        )
        if location:
            local = await asyncio.to_thread(spot, folder)
            top = local.top if local is not None else folder
            if inside(location, top):
                raise WorktreeFailed(
                    "Worktrees cannot go inside the checkout itself: pick a folder outside it."
                )
            await asyncio.to_thread(os.makedirs, location, exist_ok=True)
        setup = changes.get("setup", now.setup)
        updated = WorkspaceWorktreeSettings(
            enabled=changes.get("enabled", now.enabled),
            location=location or None,
            copy=list(changes.get("copy_files", now.copy)),
            setup=(setup or "").strip() or None,
        )
        await self.rows.set_settings(workspace_id, updated)
        return self._settings_view(workspace_id)

    async def space_used(self) -> WorktreeSpaceValue:
        items = []
        for row in list(self.rows.rows):
            used = await asyncio.to_thread(files.disk_use, row.path)
            items.append(WorktreeSpace(path=row.path, branch=row.branch, bytes=used, owned=row.owned))
        return WorktreeSpaceValue(items=items, total_bytes=sum(i.bytes for i in items))
