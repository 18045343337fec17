"""The `Engine`'s workspace and host-folder methods (the door `host/api` uses), kept in a module
of their own; the work is done by `WorkspaceRegistry` and `HostFolders`
(docs/decisions.md "Workspaces")."""

from __future__ import annotations

from contract.host import DirectoryListing
from contract.workspaces import WorkspaceView
from host.engine.directories import HostFolders
from host.engine.workspaces import WorkspaceRegistry


class WorkspaceMethods:
    """Mixed into `Engine`, which sets these attributes."""

    workspaces: WorkspaceRegistry
    folders: HostFolders

    # ---- workspace.* ---------------------------------------------------------------------------

    def list_workspaces(self) -> tuple[list[WorkspaceView], list[str]]:
        """(workspaces in registry order, the archive set in archive order)."""
        return self.workspaces.snapshot()

    async def create_workspace(self, path: str) -> tuple[WorkspaceView, bool]:
        return await self.workspaces.create(path)

    async def rename_workspace(self, workspace_id: str, title: str) -> WorkspaceView:
        return await self.workspaces.rename(workspace_id, title)

    async def delete_workspace(self, workspace_id: str) -> None:
        await self.workspaces.delete(workspace_id)

    async def move_session(self, workspace_id: str, session_id: str, before: str | None) -> WorkspaceView:
        return await self.workspaces.insert_session_before(workspace_id, session_id, before)

    async def archive_session(self, session_id: str) -> list[str]:
        return await self.workspaces.archive(session_id)

    async def unarchive_session(self, session_id: str) -> list[str]:
        return await self.workspaces.unarchive(session_id)

    # ---- host folders --------------------------------------------------------------------------

    async def pick_directory(self) -> str | None:
        return await self.folders.pick()

    async def list_directory(self, path: str | None) -> DirectoryListing:
        return await self.folders.listing(path)

    async def create_directory(self, parent: str, name: str) -> str:
        return await self.folders.create(parent, name)

    async def open_path(self, path: str) -> None:
        await self.folders.open(path)
