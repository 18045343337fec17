"""`engine.workspaces`: registered project folders, the archive set, and the host's folder
service (browse, native pick, create, open); the work is done by `WorkspaceRegistry` and
`HostFolders` (docs/decisions.md "Workspaces")."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable

from contract.host import DirectoryListing
from contract.workspaces import WorkspaceView
from host.engine.errors import HostActionFailed
from host.engine.workspaces.folders import HostFolders
from host.engine.workspaces.registry import WorkspaceRegistry


class Workspaces:
    """Workspaces, the archive set, folder trust and the host's folder service (picker, listing,
    open path)."""

    def __init__(
        self,
        registry: WorkspaceRegistry,
        folders: HostFolders,
        trust_changed: Callable[[], Awaitable[None]],
        editor: Callable[[], str],
    ) -> None:
        self._registry = registry
        self._folders = folders
        self._trust_changed = trust_changed
        """Told after a workspace's trust changed (the MCP servers follow it)."""
        self._editor = editor
        """`ui-appearance.editor`: the person's editor command ("" for none)."""

    # ---- workspace.* ---------------------------------------------------------------------------

    def list_workspaces(self) -> tuple[list[WorkspaceView], list[str]]:
        """(workspaces in registry order, the archive set in archive order)."""
        return self._registry.snapshot()

    async def create_workspace(self, path: str) -> tuple[WorkspaceView, bool]:
        return await self._registry.create(path)

    async def rename_workspace(self, workspace_id: str, title: str) -> WorkspaceView:
        return await self._registry.rename(workspace_id, title)

    async def delete_workspace(self, workspace_id: str) -> None:
        await self._registry.delete(workspace_id)

    async def move_session(self, workspace_id: str, session_id: str, before: str | None) -> WorkspaceView:
        return await self._registry.insert_session_before(workspace_id, session_id, before)

    async def archive_session(self, session_id: str) -> list[str]:
        return await self._registry.archive(session_id)

    async def unarchive_session(self, session_id: str) -> list[str]:
        return await self._registry.unarchive(session_id)

    async def set_workspace_trust(self, workspace_id: str, trusted: bool) -> WorkspaceView:
        view = await self._registry.set_trust(workspace_id, trusted)
        await self._trust_changed()
        return view

    # ---- host folders --------------------------------------------------------------------------

    async def pick_directory(self, file: str | None = None) -> str | None:
        return await self._folders.pick(file)

    async def list_directory(self, path: str | None, files: str | None = None) -> DirectoryListing:
        return await self._folders.listing(path, files)

    async def create_directory(self, parent: str, name: str) -> str:
        return await self._folders.create(parent, name)

    async def open_path(self, path: str, editor: bool = False) -> None:
        """The system's default program for `path`; with `editor`, the person's editor when the
        setting names one (split as a shell would split it, run without a shell)."""
        program: list[str] | None = None
        if editor and (line := self._editor().strip()):
            try:
                program = shlex.split(line)
            except ValueError as exc:
                raise HostActionFailed(f"the editor setting cannot be read: {exc}") from exc
        await self._folders.open(path, program)
