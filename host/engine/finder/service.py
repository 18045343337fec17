"""The `@` finder's service: one index per folder, kept fresh, ranked per keystroke
(docs/architecture.md, "The @ finder").

An index is built on a worker thread the first time a folder is searched (concurrent callers
share the walk) and kept for the last few folders. Freshness costs one stat per folder: at most
every `CHECK_S` seconds a search starts a check in the background, and a change rebuilds the
index there while the old one keeps answering, so no keystroke waits for a walk after the first.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from contract.content import TextBlock
from contract.finder import LISTING_CAP, FindValue, FoundEntry
from host.engine.finder.attach import file_block, folder_block, resolve
from host.engine.finder.index import FolderIndex, build
from host.engine.finder.rank import Memo, rank
from host.engine.workers import TOOL_WORKERS

CHECK_S = 2.0
"""How stale an index may get before a search checks it (in the background)."""
KEEP_FOLDERS = 4


@dataclass
class _Slot:
    index: FolderIndex | None = None
    memo: Memo | None = None
    building: asyncio.Task[FolderIndex] | None = None
    refreshing: asyncio.Task[None] | None = None
    checked: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Finder:
    """Searches a session's folder; `folder_of` says which folder (raising for an unknown id)."""

    def __init__(self, folder_of: Callable[[str], Awaitable[str]], cap_bytes: int) -> None:
        self.folder_of = folder_of
        self.cap_bytes = cap_bytes
        self._slots: OrderedDict[str, _Slot] = OrderedDict()

    async def find(self, session_id: str, query: str, limit: int) -> FindValue:
        folder = await self.folder_of(session_id)
        index, slot = await self.index(folder)
        async with slot.lock:  # one ranking at a time per folder: they share its memo
            if slot.memo is None or slot.memo.lower is not index.lower:
                slot.memo = Memo(index.lower)
            memo = slot.memo
            found = await TOOL_WORKERS.run(_found, index, query, limit, memo)
        return FindValue(
            matches=found, indexed=len(index.entries), partial=index.partial, attach_cap_bytes=self.cap_bytes
        )

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

    async def attach(self, session_id: str, paths: list[str]) -> list[TextBlock]:
        """The text parts for `paths` (files and folders of the session's folder), in order;
        AttachmentError for one that is not inside it, or cannot be read."""
        folder = await self.folder_of(session_id)
        root = await TOOL_WORKERS.run(os.path.realpath, folder)
        blocks: list[TextBlock] = []
        for path in paths:
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


def _found(index: FolderIndex, query: str, limit: int, memo: Memo) -> list[FoundEntry]:
    out: list[FoundEntry] = []
    for path, hits in rank(index, query, limit, memo):
        folder = path.endswith("/")
        clean = path.rstrip("/")
        size: int | None = None
        if not folder:
            with contextlib.suppress(OSError):
                st = os.stat(os.path.join(index.root, clean))
                size = st.st_size if stat.S_ISREG(st.st_mode) else None
        kept = [h for h in hits if h < len(clean)]
        out.append(FoundEntry(path=clean, kind="folder" if folder else "file", size=size, hits=kept))
    return out
