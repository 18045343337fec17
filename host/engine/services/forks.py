"""A plain fork (no files put back), shared by `engine.sessions.fork` and `engine.files`' fork
that restores files (docs/architecture.md, "Checkpoints and undo")."""

from __future__ import annotations

from collections.abc import Callable

from host.engine.agent.agent import Agent
from host.engine.agent.model_choice import CurrentSelection
from host.engine.sessions.fork import fork_session
from host.engine.sessions.lookup import Announce, Header
from host.engine.settings.selection import Selections
from host.engine.store import Store
from host.engine.tools.permissions.policy import PermissionService
from host.engine.workspaces.registry import WorkspaceRegistry


class Forks:
    def __init__(
        self,
        store: Store,
        header: Header,
        live: Callable[[str], Agent | None],
        check_open: Callable[[], None],
        selection: CurrentSelection,
        selections: Selections,
        announce: Announce,
        permissions: PermissionService,
        workspaces: WorkspaceRegistry,
    ) -> None:
        self._store = store
        self._header = header
        self._live = live
        self._check_open = check_open
        self._selection = selection
        self._selections = selections
        self._announce = announce
        self._permissions = permissions
        self._workspaces = workspaces

    async def fork(self, session_id: str, at_seq: int | None) -> str:
        """A child with the history through the anchor turn, its model and permissions inherited,
        in its source's workspace; on disk before anyone sees it."""
        self._check_open()
        header = await self._header(session_id)
        agent = self._live(session_id)
        parent = agent.journal if agent is not None else None
        selection = self._selection(session_id, parent, header)
        child = await fork_session(self._store, header, parent, at_seq)
        self._selections.inherit(child.id, selection)
        await self._permissions.inherit(child.id, session_id)
        await self._store.flush()  # its seed and preset are on disk before anyone sees the child
        self._announce(child)
        workspace_id = self._workspaces.containing(session_id)
        if workspace_id is not None:  # the child joins its source's workspace
            await self._workspaces.attach(workspace_id, child.id)
        return child.id
