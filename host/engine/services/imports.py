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

from host.engine.errors import SessionAlreadyHere
from host.engine.store import ExportEvent, ExportHeader, ExportRow, SessionHeader
from host.engine.store import ids as new_ids
from host.engine.workspaces.registry import WorkspaceRegistry

ImportRows = Callable[[Iterable[ExportRow], str], Awaitable[str]]
HeaderOf = Callable[[str], Awaitable[SessionHeader | None]]


def session_ids(sessions: list[list[ExportRow]]) -> list[str]:
    """The ids the archive's headers name, the main session first."""
    return [json.loads(rows[0].json)["id"] for rows in sessions if rows and isinstance(rows[0], ExportHeader)]


COPY_SUFFIX = " (copy)"


def as_copy(sessions: list[list[ExportRow]]) -> list[list[ExportRow]]:
    """The archive's sessions under fresh ids (every reference between them follows: ids are
    128-bit random, so the old id's text names nothing else), each title ending in "(copy)"."""
    renamed = {old: new_ids.session_id() for old in session_ids(sessions)}

    def swap(text: str) -> str:
        for old, new in renamed.items():
            text = text.replace(json.dumps(old), json.dumps(new))
        return text

    out: list[list[ExportRow]] = []
    for rows in sessions:
        titled = [i for i, r in enumerate(rows) if isinstance(r, ExportEvent) and _is_title(r)]
        copied: list[ExportRow] = []
        for i, row in enumerate(rows):
            if isinstance(row, ExportHeader):
                header = json.loads(swap(row.json))
                if isinstance(header.get("title"), str):
                    header["title"] = _copy_title(header["title"])
                copied.append(ExportHeader(json.dumps(header)))
            elif isinstance(row, ExportEvent):
                text = swap(row.json)
                if titled and i == titled[-1]:
                    event = json.loads(text)
                    data = event.get("data")
                    if isinstance(data, dict) and isinstance(data.get("title"), str):
                        data["title"] = _copy_title(data["title"])
                        text = json.dumps(event)
                copied.append(ExportEvent(text))
            else:
                copied.append(row)
        out.append(copied)
    return out


def _is_title(row: ExportEvent) -> bool:
    return "title" in row.json and json.loads(row.json).get("type") == "session/title"


def _copy_title(title: str) -> str:
    return title if title.endswith(COPY_SUFFIX) else f"{title}{COPY_SUFFIX}"


class ArchiveImports:
    """Importing a session archive into a workspace.

    Writes each session of an archive, then joins them to the workspace's account."""

    def __init__(self, workspaces: WorkspaceRegistry, import_rows: ImportRows, header_of: HeaderOf) -> None:
        self._workspaces = workspaces
        self._import_rows = import_rows
        self._header_of = header_of

    async def into_workspace(
        self, sessions: list[list[ExportRow]], workspace_id: str, copy: bool = False
    ) -> list[str]:
        """Import every session (already checked whole by the reader) working in the workspace's
        folder; returns their ids, the main one first. SessionAlreadyHere (`session-exists`) when
        one is already here (nothing is written then) unless `copy`: then under new ids;
        WorkspaceNotFound for an unknown workspace."""
        path = self._workspaces.get(workspace_id).path
        if copy:
            sessions = as_copy(sessions)
        ids = session_ids(sessions)
        for sid in ids:
            existing = await self._header_of(sid)
            if existing is not None:
                raise SessionAlreadyHere(sid, existing.cwd)
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
