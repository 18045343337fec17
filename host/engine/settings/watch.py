"""A configuration file the host holds, and noticing when it is edited outside the host (a text
editor, a script).

`WatchedFile` is the part settings.json and credentials.json share: read, re-read on outside
edits, write only over what was read, refuse while unusable, reset. `FileWatch` polls `os.stat`
per interval: no dependency, works on every platform and file system (inotify misses edits on
network mounts and through some editors' rename dances). The host's own writes record their
signature first, so only outside edits call back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from host.engine.settings.files import (
    FileProblem,
    Signature,
    read_json,
    set_aside,
    signature,
    writable_dir,
    write_private,
)

log = logging.getLogger(__name__)

POLL_INTERVAL = 0.5
"""Seconds between checks: an edit shows up in every open window within about this long."""
T = TypeVar("T")
A = TypeVar("A")


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


class EditedMeanwhile(Exception):
    """The file changed on disk between the re-read and the write: nothing was written."""


class WatchedFile(Generic[T]):
    """One configuration file (settings.json, credentials.json) as the host holds it: `value`
    read once, re-read when the file is edited outside the host (watched, and before every
    write), written atomically only when the file on disk is still the one read, and never
    written over while it cannot be used: `problem` names why until a hand edit fixes it or
    `reset()` sets it aside (docs/decisions.md, "Configuration files that cannot be read").

    `read` turns the file's JSON (None when absent) into the value or raises FileProblem;
    `document` turns a value back into JSON; `edited(old, new)` is called on the event loop
    after an outside edit was read (the owner announces what changed)."""

    def __init__(
        self,
        path: Path,
        *,
        read: Callable[[dict[str, Any] | None], T],
        document: Callable[[T], dict[str, Any]],
        edited: Callable[[T, T], None],
        poll_interval: float = POLL_INTERVAL,
    ) -> None:
        self.path = path
        self._read = read
        self._document = document
        self._edited = edited
        self._lock = threading.Lock()
        self._listeners: list[Callable[[str | None], None]] = []
        self.watch = FileWatch(path, self.reload, poll_interval)
        self.problem: str | None = None
        """Why the file cannot be used (one sentence naming it); None when it can."""
        try:
            self.value: T = read(read_json(path))
        except FileProblem as exc:
            self.value = read(None)
            self.problem = str(exc)
            log.warning("not using %s: %s", path.name, exc)

    def on_file_change(self, listener: Callable[[str | None], None]) -> None:
        """`listener(problem)` on the event loop whenever the file's problem changes."""
        self._listeners.append(listener)

    @property
    def writable(self) -> bool:
        if self.problem is not None:
            return False
        if not writable_dir(self.path.parent):
            return False
        return not self.path.exists() or os.access(self.path, os.W_OK)

    def refusal(self) -> str:
        """The answer to a write while the file cannot be used."""
        return f"{self.problem} Nothing is written to it until it is fixed (Open file) or reset."

    # ---- writing ------------------------------------------------------------------------------

    async def ready(self, refused: Callable[[str], Exception]) -> None:
        """Before a write: re-read a hand edit the poll has not seen yet (it is never written
        over), then refuse while the file cannot be used. `refused(sentence)` is the owner's
        typed error (settings-rejected, credential-rejected)."""
        await self.reload()
        if self.problem is not None:
            raise refused(self.refusal())

    async def write(self, edit: Callable[[T], T | None], refused: Callable[[str], Exception]) -> bool:
        """Write `edit(value)` (None: nothing to change, nothing written) and hold it, only if the
        file on disk is still the one read; False when nothing was written. A file changed
        meanwhile or one that cannot be written is `refused(sentence)`: nothing was written."""
        try:
            return await asyncio.to_thread(self._save, edit)
        except EditedMeanwhile:
            raise refused(
                f"{self.path.name} was changed on disk while saving; nothing was written, try again"
            ) from None
        except OSError as exc:
            raise refused(f"could not save {self.path.name}: {exc.strerror or exc}") from None

    def _save(self, edit: Callable[[T], T | None]) -> bool:
        with self._lock:
            new = edit(self.value)
            if new is None:
                return False
            if signature(self.path) != self.watch.known:
                raise EditedMeanwhile
            self.watch.known = write_private(self.path, self._document(new))
            self.value = new
            return True

    async def create(self) -> None:
        """Write the file from the value held, when it does not exist (and nothing is wrong)."""
        await asyncio.to_thread(self._create)

    def _create(self) -> None:
        with self._lock:
            if self.problem is None and not os.path.lexists(self.path):
                self.watch.known = write_private(self.path, self._document(self.value))

    # ---- outside edits ------------------------------------------------------------------------

    async def reload(self) -> None:
        """Re-read the file when its signature differs from the one last read or written."""
        if signature(self.path) == self.watch.known:
            return
        before = self.problem
        read = await asyncio.to_thread(self._reread)
        if read is not None:
            self._edited(*read)
        if self.problem != before:
            self._file_changed()

    def _reread(self) -> tuple[T, T] | None:
        with self._lock:
            now = signature(self.path)
            try:
                fresh = self._read(read_json(self.path))
            except FileProblem as exc:
                self.watch.known = now
                if self.problem != str(exc):
                    log.warning("not using the edited %s: %s", self.path.name, exc)
                self.problem = str(exc)  # the host keeps what it had; nothing is written
                return None
            self.watch.known = now
            self.problem = None
            old, self.value = self.value, fresh
            return old, fresh

    # ---- reset --------------------------------------------------------------------------------

    async def reset(self) -> str | None:
        """Set an unusable file aside (`<name>.broken-<UTC time>`) and write the value the host
        holds now in its place; the kept file's name, or None when the file was usable
        (nothing done: a fix may have landed since the person chose Reset)."""
        await self.reload()
        kept = await asyncio.to_thread(self._reset)
        if kept is not None:
            self._file_changed()
        return kept

    def _reset(self) -> str | None:
        with self._lock:
            if self.problem is None:
                return None
            kept = set_aside(self.path)
            self.watch.known = write_private(self.path, self._document(self.value))
            self.problem = None
            log.warning("%s could not be used; kept it as %s and started afresh", self.path.name, kept.name)
            return kept.name

    def _file_changed(self) -> None:
        tell(self._listeners, self.problem, about=self.path.name)


def tell(listeners: list[Callable[[A], None]], what: A, *, about: str) -> None:
    """Call each listener with `what`; one that raises is logged and the others still hear it."""
    for listener in list(listeners):
        try:
            listener(what)
        except Exception:
            log.exception("a listener of %s failed", about)
