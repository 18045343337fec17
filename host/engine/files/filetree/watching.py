"""The watch on a session's folder while a Files pane looks at it (docs/decisions.md, "Terminal
and files").

`watchfiles` (the operating system's file events: inotify on Linux, no polling of the tree),
debounced: changes that come within `STEP` ms of each other (at most `DEBOUNCE` ms) are reported
once, as the changed paths relative to the folder. Inside version control's own folders only
what moves git's marks counts (the index, HEAD, refs: reported as "", read everything again);
the rest of `.git` is not reported. A watch that fails (the system's limit on watches reached)
logs why and ends: the pane still reads the folder when asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable

from watchfiles import Change, awatch

from host.engine.files.finder.index import VCS_FOLDERS

log = logging.getLogger(__name__)

DEBOUNCE = 300
"""Most milliseconds changes are gathered before they are reported."""
STEP = 50
"""Milliseconds of quiet that end a batch."""
MAX_PATHS = 500
"""Paths one report names; more are reported as "" (read everything again)."""
GIT_STATE = ("index", "HEAD")


def _report(root: str, path: str) -> str | None:
    """What a change of `path` reports: its relative path, "" for git's state, None for
    nothing."""
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    if rel.startswith("../"):
        return None
    parts = rel.split("/")
    for i, part in enumerate(parts[:-1]):
        if part in VCS_FOLDERS:
            inside = parts[i + 1 :]
            return "" if inside[0] in GIT_STATE or inside[0] == "refs" else None
    return "" if rel == "." else rel


class FolderWatch:
    """Reports the changes below `root` to `changed(paths)` until `stop()`."""

    def __init__(self, root: str, changed: Callable[[list[str]], None]) -> None:
        self.root = root
        self._changed = changed
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._run(), name=f"watch {root}")

    def _wanted(self, _change: Change, path: str) -> bool:
        return _report(self.root, path) is not None

    async def _run(self) -> None:
        try:
            async for changes in awatch(
                self.root,
                watch_filter=self._wanted,
                debounce=DEBOUNCE,
                step=STEP,
                stop_event=self._stop,
                ignore_permission_denied=True,
            ):
                found = {r for _change, path in changes if (r := _report(self.root, path)) is not None}
                if found:
                    paths = sorted(found) if len(found) <= MAX_PATHS else [""]
                    self._changed(paths)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the watch ends; the pane still reads on demand
            log.warning("watching %s stopped: %s", self.root, exc)

    @property
    def running(self) -> bool:
        return not self._task.done()

    async def stop(self) -> None:
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), 5.0)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
