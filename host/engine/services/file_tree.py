"""`engine.file_tree`: `files.tree` and `files.read`, the Files pane's look at a session's folder,
and the watch that tells it what changed (docs/decisions.md, "Terminal and files").

Read-only. Every path is relative to the session's folder and must resolve inside it
(`outside-folder`). The first `files.tree` of a session starts watching its folder; the watch
lasts until the session is deleted or the host stops (at most `MAX_WATCHES` folders at once: the
one looked at longest ago stops first).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path

from contract.file_tree import FilesChanged, ReadValue, TreeEntry, TreeValue
from host.engine.errors import DirectoryUnreadable, NotAFile, OutsideFolder
from host.engine.files.filetree import listing, marks, reading
from host.engine.files.filetree.paths import relative, resolve
from host.engine.files.filetree.watching import FolderWatch
from host.engine.files.git.runner import FolderGit
from host.workers import TOOL_WORKERS

log = logging.getLogger(__name__)

MAX_WATCHES = 8


class FileTree:
    """The Files pane: `files.tree`, `files.read` and the folders' watch (over
    `host/engine/files/filetree/`).

    `folder_of(session_id)`: the folder a session works in (SessionNotFound for none);
    `changed(session_id)`: the paths the Changes view lists for it; `publish(frame)`: onto the
    mux stream; `trusted(top)`: whether the person trusted a repository's folder."""

    def __init__(
        self,
        folder_of: Callable[[str], Awaitable[str]],
        git: FolderGit,
        trusted: Callable[[Path], bool],
        changed: Callable[[str], Awaitable[set[str]]],
        publish: Callable[[FilesChanged], None],
    ) -> None:
        self._folder_of = folder_of
        self._git = git
        self._trusted = trusted
        self._changed = changed
        self._publish = publish
        self._watches: OrderedDict[str, FolderWatch] = OrderedDict()
        self._watchers: dict[str, set[str]] = {}
        """Folder → the sessions told about its changes."""
        self._closed = False

    async def _locate(self, session_id: str, raw: str) -> tuple[str, str, str]:
        """(the session folder's real path, `raw` relative to it, its real path)."""
        return await TOOL_WORKERS.run(_locate, await self._folder_of(session_id), raw)

    async def tree(self, session_id: str, raw: str, show_ignored: bool) -> TreeValue:
        """One level of folder `raw`: its entries with their ignore, git and session marks."""
        root, rel, target = await self._locate(session_id, raw)
        if not await TOOL_WORKERS.run(os.path.isdir, target):
            raise DirectoryUnreadable(raw or ".", f"{raw or '.'} is not a folder.")
        try:
            found, truncated = await TOOL_WORKERS.run(listing.list_level, root, rel, target, show_ignored)
        except OSError as exc:
            raise DirectoryUnreadable(raw or ".", f"{raw or '.'} cannot be read: {exc.strerror}") from exc
        straight = target == (f"{root}/{rel}" if rel else root)  # no symlink on the way
        git = await marks.marks(self._git, self._trusted, root, rel) if straight else marks.Marks()
        session_paths = await self._session_paths(session_id, root)
        entries = [_entry(e, git, session_paths) for e in found]
        listed = {e.path for e in entries}
        entries += [
            TreeEntry(path=p, kind="file", size=0, git="deleted", changed_by_session=p in session_paths)
            for p in git.deleted_in(rel)
            if p not in listed
        ]
        self._watch(session_id, root)
        return TreeValue(entries=entries, truncated=truncated, repo=git.repo, git_withheld=git.withheld)

    async def read(
        self, session_id: str, raw: str, start_line: int | None, max_lines: int | None
    ) -> ReadValue:
        _root, rel, target = await self._locate(session_id, raw)
        if not rel:
            raise NotAFile(raw)
        return await TOOL_WORKERS.run(reading.read, target, rel, start_line, max_lines)

    async def _session_paths(self, session_id: str, root: str) -> set[str]:
        """The session's changed paths relative to its folder (none for a session with no log)."""
        try:
            paths = await self._changed(session_id)
        except Exception as exc:  # no log yet, a store hiccup: the tree still lists
            log.debug("no session changes for %s: %s", session_id, exc)
            return set()
        out: set[str] = set()
        for p in paths:
            try:
                rel = relative(root, p)
            except OutsideFolder:
                continue
            if rel:
                out.add(rel)
        return out

    # ---- the watch ---------------------------------------------------------------------------

    def _watch(self, session_id: str, root: str) -> None:
        if self._closed:
            return
        self._watchers.setdefault(root, set()).add(session_id)
        watch = self._watches.get(root)
        if watch is not None and watch.running:
            self._watches.move_to_end(root)
            return
        self._watches[root] = FolderWatch(root, lambda paths: self._tell(root, paths))
        while len(self._watches) > MAX_WATCHES:
            oldest, old = self._watches.popitem(last=False)
            self._watchers.pop(oldest, None)
            _stop_later(old)

    def _tell(self, root: str, paths: list[str]) -> None:
        for sid in sorted(self._watchers.get(root, ())):
            self._publish(FilesChanged(session_id=sid, paths=paths))

    async def session_removed(self, session_id: str) -> None:
        for root, sids in list(self._watchers.items()):
            sids.discard(session_id)
            if not sids:
                del self._watchers[root]
                watch = self._watches.pop(root, None)
                if watch is not None:
                    await watch.stop()

    async def close(self) -> None:
        self._closed = True
        watches = list(self._watches.values())
        self._watches.clear()
        self._watchers.clear()
        await asyncio.gather(*(w.stop() for w in watches), return_exceptions=True)


def _locate(folder: str, raw: str) -> tuple[str, str, str]:
    root = os.path.realpath(folder)
    rel = relative(root, raw)
    return root, rel, resolve(root, rel, raw)


def _entry(e: listing.Listed, git: marks.Marks, session_paths: set[str]) -> TreeEntry:
    if e.kind == "dir":
        mark = git.of_dir(e.path)
        mine = any(p.startswith(e.path + "/") for p in session_paths)
    else:
        mark = git.of_file(e.path)
        mine = e.path in session_paths
    if e.ignored and mark is None:
        mark = "ignored"
    return TreeEntry(
        path=e.path,
        kind=e.kind,  # type: ignore[arg-type]
        size=e.size,
        git=mark,  # type: ignore[arg-type]
        target=e.target,  # type: ignore[arg-type]
        changed_by_session=mine,
    )


_stopping: set[asyncio.Task[None]] = set()


def _stop_later(watch: FolderWatch) -> None:
    task = asyncio.create_task(watch.stop())
    _stopping.add(task)
    task.add_done_callback(_stopping.discard)
