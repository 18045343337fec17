"""A plain fork (no files put back), shared by `engine.sessions.fork` and `engine.files`' fork
that restores files (docs/architecture.md, "Checkpoints and undo")."""

from __future__ import annotations

from host.engine.services.core import Core
from host.engine.sessions.fork import fork_session
from host.engine.tools.permissions.policy import PermissionService
from host.engine.workspaces.registry import WorkspaceRegistry


class Forks:
    def __init__(self, core: Core, permissions: PermissionService, workspaces: WorkspaceRegistry) -> None:
        self._core = core
        self._permissions = permissions
        self._workspaces = workspaces

    async def fork(self, session_id: str, at_seq: int | None) -> str:
        """A child with the history through the anchor turn, its model and permissions inherited,
        in its source's workspace; on disk before anyone sees it."""
        core = self._core
        core.check_open()
        header = await core.header(session_id)
        agent = core.pool.get(session_id)
        parent = agent.journal if agent is not None else None
        selection = core.current_selection(session_id, parent, header)
        child = await fork_session(core.store, header, parent, at_seq)
        core.selections.inherit(child.id, selection)
        await self._permissions.inherit(child.id, session_id)
        await core.store.flush()  # its seed and preset are on disk before anyone sees the child
        core.announce(child)
        workspace_id = self._workspaces.containing(session_id)
        if workspace_id is not None:  # the child joins its source's workspace
            await self._workspaces.attach(workspace_id, child.id)
        return child.id
