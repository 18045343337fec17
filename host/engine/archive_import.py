"""Importing checked archive rows into a registered workspace (docs/decisions.md, "Import in the
app"): the window's Import button, a dropped archive, a CLI hand-off and `harnessdesk import`
all come here, so an import always lands under its folder in the sidebar, never "Ungrouped".

What an archive carries never loosens anything: its cwd is replaced by the workspace's path,
its queued input is cancelled, its `permission/preset` events grant nothing (an imported session
is pinned to the default preset when first opened, docs/decisions.md "Permissions") and no
"Allow always" rule travels in an archive.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable

from host.engine.errors import SessionConflict
from host.engine.store import ExportHeader, ExportRow, SessionHeader
from host.engine.workspaces import WorkspaceRegistry

ImportRows = Callable[[Iterable[ExportRow], str], Awaitable[str]]
HeaderOf = Callable[[str], Awaitable[SessionHeader | None]]


def session_ids(sessions: list[list[ExportRow]]) -> list[str]:
    """The ids the archive's headers name, the main session first."""
    return [json.loads(rows[0].json)["id"] for rows in sessions if rows and isinstance(rows[0], ExportHeader)]


class ArchiveImports:
    """Writes each session of an archive, then joins them to the workspace's account."""

    def __init__(self, workspaces: WorkspaceRegistry, import_rows: ImportRows, header_of: HeaderOf) -> None:
        self._workspaces = workspaces
        self._import_rows = import_rows
        self._header_of = header_of

    async def into_workspace(self, sessions: list[list[ExportRow]], workspace_id: str) -> list[str]:
        """Import every session (already checked whole by the reader) working in the workspace's
        folder; returns their ids, the main one first. SessionConflict when one is already here
        (nothing is written then); WorkspaceNotFound for an unknown workspace."""
        path = self._workspaces.get(workspace_id).path
        ids = session_ids(sessions)
        for sid in ids:
            existing = await self._header_of(sid)
            if existing is not None:
                where = f", in {existing.cwd}" if existing.cwd else ""
                message = f"session {sid} is already here{where}"
                raise SessionConflict(sid, path, existing.cwd, message)
        imported = [await self._import_rows(rows, path) for rows in sessions]
        for sid in reversed(imported):  # attach prepends: the main session ends on top
            header = await self._header_of(sid)
            if header is not None and header.origin != "subagent":  # a subagent sits under its parent
                await self._workspaces.attach(workspace_id, sid)
        return imported

    async def into_folder(self, sessions: list[list[ExportRow]], path: str) -> tuple[str, list[str]]:
        """`harnessdesk import --cwd DIR`: register DIR (or adopt its registration) and import
        there; returns (workspace id, session ids)."""
        view, _ = await self._workspaces.create(path)
        return view.workspace_id, await self.into_workspace(sessions, view.workspace_id)
