"""Automatic backups of the database with SQLite's online backup API (docs/decisions.md).

A backup is a consistent snapshot taken on its own connection and thread (the writer never
waits for it), written to a temporary name, checked with `PRAGMA quick_check`, then renamed
into `<data dir>/backups/harnessdesk-YYYYmmdd-HHMMSS-mmm.sqlite3`; only the newest `KEEP` stay.
`BackupSchedule` takes one when the newest is a day old, checking soon after start and then
hourly. Its first run also finishes the integrity check when the start-up check ran out of time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from host.engine.store.base import StoreCorrupt
from host.engine.store.faults import classify, damaged, quick_check

log = logging.getLogger(__name__)

KEEP = 3
EVERY = 24 * 3600.0
FIRST_CHECK = 60.0
CHECK_EVERY = 3600.0
PREFIX = "harnessdesk-"
SUFFIX = ".sqlite3"


def backups(folder: Path) -> list[Path]:
    """The backups in `folder`, oldest first."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.startswith(PREFIX) and p.name.endswith(SUFFIX))


def newest_age(folder: Path, now: float | None = None) -> float | None:
    """Seconds since the newest backup was written, or None when there is none."""
    found = backups(folder)
    if not found:
        return None
    return (now or time.time()) - found[-1].stat().st_mtime


def make_backup(database: Path, folder: Path, keep: int = KEEP) -> Path:
    """Copy `database` into a new checked backup in `folder`; prune to the newest `keep`."""
    folder.mkdir(parents=True, exist_ok=True)
    now = time.time()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    n = int(now * 1000) % 1000
    final = folder / f"{PREFIX}{stamp}-{n:03d}{SUFFIX}"
    while final.exists():  # names sort in the order they were made
        n += 1
        final = folder / f"{PREFIX}{stamp}-{n:03d}{SUFFIX}"
    partial = final.with_name(final.name + ".partial")
    try:
        source = sqlite3.connect(str(database), timeout=5.0)
        try:
            target = sqlite3.connect(str(partial))
            try:
                source.backup(target)
                target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
                problems = quick_check(target, None)
                if problems:
                    raise sqlite3.DatabaseError(f"the copy does not check out: {problems[0]}")
            finally:
                target.close()
        finally:
            source.close()
        os.replace(partial, final)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    for old in backups(folder)[:-keep]:
        with contextlib.suppress(OSError):
            old.unlink()
    return final


def full_check(database: Path) -> list[str]:
    """A complete `PRAGMA quick_check` on a connection of its own ([] when sound). A file too
    damaged to check at all is a problem too; other failures (a lock, I/O) raise."""
    conn = sqlite3.connect(str(database), timeout=5.0)
    try:
        return quick_check(conn, None) or []
    except sqlite3.DatabaseError as exc:
        if isinstance(classify(exc, database), StoreCorrupt):
            return [str(exc)]
        raise
    finally:
        conn.close()


class BackupSchedule:
    """The background task: finish a partial integrity check, then a backup a day."""

    def __init__(
        self,
        database: Path,
        folder: Path,
        *,
        fully_checked: bool,
        on_damage: Callable[[str], None],
        every: float = EVERY,
        first_check: float = FIRST_CHECK,
        check_every: float = CHECK_EVERY,
        keep: int = KEEP,
    ) -> None:
        self.database = database
        self.folder = folder
        self.every = every
        self.first_check = first_check
        self.check_every = check_every
        self.keep = keep
        self._needs_check = not fully_checked
        self._on_damage = on_damage
        self._task: asyncio.Task[None] | None = None
        self.made: list[Path] = []

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="store-backups")

    async def close(self) -> None:
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        await asyncio.sleep(self.first_check)
        while True:
            await self.tick()
            await asyncio.sleep(self.check_every)

    async def tick(self) -> None:
        """One round: the deferred integrity check, then a backup if the newest is too old."""
        try:
            if self._needs_check:
                problems = await asyncio.to_thread(full_check, self.database)
                self._needs_check = False
                if problems:
                    self._on_damage(str(damaged(self.database, problems[0])))
                    return  # never back up a damaged file over good backups
            age = newest_age(self.folder)
            if age is None or age >= self.every:
                path = await asyncio.to_thread(make_backup, self.database, self.folder, self.keep)
                self.made.append(path)
                log.info("database backed up to %s", path)
        except (OSError, sqlite3.Error) as exc:
            log.warning("database backup failed (will try again later): %s", exc)
