"""Notice when a configuration file is edited outside the host (a text editor, a script).

A poll of `os.stat` per interval: no dependency, works on every platform and file system
(inotify misses edits on network mounts and through some editors' rename dances). The host's own
writes record their signature first, so only outside edits call back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from host.engine.settings.files import Signature, signature

log = logging.getLogger(__name__)

POLL_INTERVAL = 0.5
"""Seconds between checks: an edit shows up in every open window within about this long."""


class FileWatch:
    """Calls `changed()` (an async callback) when `path`'s signature differs from `known`."""

    def __init__(self, path: Path, changed: Callable[[], Awaitable[None]], interval: float = POLL_INTERVAL):
        self.path = path
        self.known: Signature | None = signature(path)
        """The signature the host last read or wrote; the owner updates it after its writes."""
        self._changed = changed
        self._interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"watch-{self.path.name}")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            try:
                now = signature(self.path)
                if now != self.known:
                    await self._changed()
            except asyncio.CancelledError:
                raise
            except Exception:  # a watcher that dies would silently stop live reloads
                log.exception("reloading %s failed", self.path.name)
