"""The `@` finder's service: one index per folder, kept fresh, ranked per keystroke
(docs/architecture.md, "The @ finder").

An index is built on a worker thread the first time a folder is searched (concurrent callers
share the walk) and kept for the last few folders. Freshness costs one stat per folder: at most
every `CHECK_S` seconds a search starts a check in the background, and a change rebuilds the
index there while the old one keeps answering, so no keystroke waits for a walk after the first.
MCP resources of the session's ready servers are ranked with the files by the same matcher, on
their label `server:name` (docs/decisions.md, "MCP resources in the @ finder").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from contract.content import TextBlock
from contract.finder import LISTING_CAP, FindValue, FoundEntry, FoundResource
from contract.sessions import AttachInput
from host.engine.errors import AttachmentError
from host.engine.files.finder.attach import file_block, folder_block, resolve
from host.engine.files.finder.index import FolderIndex, build
from host.engine.files.finder.rank import Memo, Row, rows
from host.engine.integrations.mcp.resources import ResourceInfo, label
from host.workers import TOOL_WORKERS

log = logging.getLogger(__name__)

CHECK_S = 2.0
"""How stale an index may get before a search checks it (in the background)."""
KEEP_FOLDERS = 4
RESOURCES_UNASKED = 5
"""Resources an empty query shows after the top of the folder."""


class Resources(Protocol):
    """A session's MCP resources (host/engine/integrations/mcp/finding.py)."""

    async def find(self, session_id: str) -> tuple[list[tuple[str, ResourceInfo]], list[str]]: ...

    async def read(self, session_id: str, server: str, uri: str, cap: int) -> TextBlock: ...


@dataclass(frozen=True)
class _Offered:
    """Resource labels as a small index of their own, rebuilt when the listing changes."""

    index: FolderIndex
    by_label: dict[str, tuple[str, ResourceInfo]]


@dataclass
class _Slot:
    index: FolderIndex | None = None
    memo: Memo | None = None
    building: asyncio.Task[FolderIndex] | None = None
    refreshing: asyncio.Task[None] | None = None
    checked: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Finder:
    """The `@` finder: ranked files, folders and MCP resources of a session's folder.

    Searches a session's folder (and its MCP resources); `folder_of` says which folder
    (raising for an unknown id)."""

    def __init__(
        self, folder_of: Callable[[str], Awaitable[str]], cap_bytes: int, resources: Resources | None = None
    ) -> None:
        self.folder_of = folder_of
        self.cap_bytes = cap_bytes
        self.resources = resources
        self._slots: OrderedDict[str, _Slot] = OrderedDict()
        self._offered: _Offered | None = None

    async def find(self, session_id: str, query: str, limit: int) -> FindValue:
        folder = await self.folder_of(session_id)
        listing = asyncio.ensure_future(self._resources_of(session_id)) if self.resources else None
        try:
            index, slot = await self.index(folder)
        except BaseException:
            if listing is not None:
                listing.cancel()
            raise
        found_resources, problems = await listing if listing is not None else ([], [])
        offered = self._offer(found_resources)
        async with slot.lock:  # one ranking at a time per folder: they share its memo
            if slot.memo is None or slot.memo.lower is not index.lower:
                slot.memo = Memo(index.lower)
            memo = slot.memo
            found = await TOOL_WORKERS.run(_found, index, query, limit, memo, offered)
        return FindValue(
            matches=found,
            indexed=len(index.entries),
            partial=index.partial,
            attach_cap_bytes=self.cap_bytes,
            resource_problems=problems,
        )

    async def _resources_of(self, session_id: str) -> tuple[list[tuple[str, ResourceInfo]], list[str]]:
        """The session's MCP resources; whatever goes wrong there, the files still answer."""
        assert self.resources is not None
        try:
            return await self.resources.find(session_id)
        except Exception as exc:
            log.warning("finder: MCP resources failed: %s", exc)
            return [], [f"MCP resources: {str(exc)[:200] or exc.__class__.__name__}"]

    def _offer(self, found: list[tuple[str, ResourceInfo]]) -> _Offered | None:
        if not found:
            return None
        by_label: dict[str, tuple[str, ResourceInfo]] = {}
        for server, info in found:
            shown = _label(server, info)
            by_label[f"{shown} ({info.uri})" if shown in by_label else shown] = (server, info)
        kept = self._offered
        if kept is not None and kept.by_label == by_label:
            return kept
        labels = sorted(by_label, key=lambda x: (len(x), x))
        self._offered = _Offered(FolderIndex("", labels, [x.lower() for x in labels], False), by_label)
        return self._offered

    async def index(self, folder: str) -> tuple[FolderIndex, _Slot]:
        """The folder's index (built now when there is none), and a background check when due."""
        real = await TOOL_WORKERS.run(os.path.realpath, folder)
        slot = self._slots.get(real)
        if slot is None:
            slot = self._slots[real] = _Slot()
            while len(self._slots) > KEEP_FOLDERS:
                self._slots.popitem(last=False)
        self._slots.move_to_end(real)
        if slot.index is None:
            if slot.building is None:
                slot.building = asyncio.ensure_future(TOOL_WORKERS.run(build, real))
            try:
                slot.index = await asyncio.shield(slot.building)
            finally:
                if slot.building.done():
                    slot.building = None
            slot.checked = time.monotonic()
        elif time.monotonic() - slot.checked > CHECK_S and slot.refreshing is None:
            slot.checked = time.monotonic()
            slot.refreshing = asyncio.ensure_future(self._refresh(real, slot))
        return slot.index, slot

    async def _refresh(self, real: str, slot: _Slot) -> None:
        try:
            old = slot.index
            if old is not None and await TOOL_WORKERS.run(old.changed):
                slot.index = await TOOL_WORKERS.run(build, real)
                slot.checked = time.monotonic()
        finally:
            slot.refreshing = None

    async def attach(self, session_id: str, items: Sequence[str | AttachInput]) -> list[TextBlock]:
        """The text parts for `items` (files and folders of the session's folder, or MCP
        resources), in order; AttachmentError for one that is not inside the folder, or cannot
        be read."""
        folder = await self.folder_of(session_id)
        root = await TOOL_WORKERS.run(os.path.realpath, folder)
        blocks: list[TextBlock] = []
        for item in items:
            if isinstance(item, AttachInput) and item.path is None:
                if self.resources is None or item.server is None or item.uri is None:
                    raise AttachmentError("this host offers no MCP resources")
                blocks.append(await self.resources.read(session_id, item.server, item.uri, self.cap_bytes))
                continue
            path = item if isinstance(item, str) else str(item.path)
            rel, real, st = await TOOL_WORKERS.run(resolve, root, path)
            if stat.S_ISDIR(st.st_mode):
                index, _ = await self.index(folder)
                blocks.append(folder_block(rel, index, LISTING_CAP))
            else:
                blocks.append(await TOOL_WORKERS.run(file_block, root, rel, real, self.cap_bytes))
        return blocks

    async def close(self) -> None:
        for slot in self._slots.values():
            for task in (slot.building, slot.refreshing):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(BaseException):
                        await task
        self._slots.clear()


def _label(server: str, info: ResourceInfo) -> str:
    """`server:name` on one line, never ending in "/" (the index reads that as a folder)."""
    return " ".join(label(server, info.name).split()).rstrip("/") or label(server, "?")


def _found(
    index: FolderIndex, query: str, limit: int, memo: Memo, offered: _Offered | None
) -> list[FoundEntry]:
    q = "".join(query.lower().split())
    file_rows: list[Row]
    res_rows: list[Row] = []
    if not q:
        file_rows = [(0, 0, 0, p, []) for p in index.entries[:limit]]
        if offered is not None:
            shown = min(RESOURCES_UNASKED, limit // 2)
            res_rows = [(0, 0, 0, p, []) for p in offered.index.entries[:shown]]
        picked = [*[(r, False) for r in file_rows[: limit - len(res_rows)]], *[(r, True) for r in res_rows]]
    else:
        file_rows = rows(index, q, limit, memo)
        if offered is not None:
            res_rows = rows(offered.index, q, limit, Memo(offered.index.lower))
        tagged = [(r, False) for r in file_rows] + [(r, True) for r in res_rows]
        tagged.sort(key=lambda t: (t[0][0], t[0][1], t[0][2], t[0][3]))
        picked = tagged[:limit]
    out: list[FoundEntry] = []
    for (_, _, _, path, hits), is_resource in picked:
        if is_resource and offered is not None:
            server, info = offered.by_label[path]
            ref = FoundResource(
                server=server,
                uri=info.uri,
                name=info.name,
                title=info.title,
                mime_type=info.mime_type,
                description=info.description,
            )
            out.append(FoundEntry(path=path, kind="resource", size=info.size, hits=hits, resource=ref))
            continue
        out.append(_file_entry(index, path, hits))
    return out


def _file_entry(index: FolderIndex, path: str, hits: list[int]) -> FoundEntry:
    folder = path.endswith("/")
    clean = path.rstrip("/")
    size: int | None = None
    if not folder:
        with contextlib.suppress(OSError):
            st = os.stat(os.path.join(index.root, clean))
            size = st.st_size if stat.S_ISREG(st.st_mode) else None
    kept = [h for h in hits if h < len(clean)]
    return FoundEntry(path=clean, kind="folder" if folder else "file", size=size, hits=kept)
