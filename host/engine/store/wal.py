"""WAL checkpoints on a thread and connection of their own, never on the writer's.

A checkpoint copies the write-ahead log into the database file and, with `synchronous=NORMAL`,
is the one step that waits for the disk (fsync): on a busy disk that can take hundreds of
milliseconds. Run by the writer (SQLite's automatic checkpoint at commit, or an explicit one at
a turn's end) it held every queued write — and with "durable before visible" every frame
waiting for them — for that long. A PASSIVE checkpoint from another connection runs beside the
writer's transactions instead, so the writer's connection has automatic checkpoints off and
this thread checkpoints when the log has grown past `threshold` bytes, or when asked (a turn
ended). A failed checkpoint (a full disk) loses nothing: the data stays in the log, and the
next round tries again (docs/decisions.md "Reliability").
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from pathlib import Path

from host.engine.store.schema import open_connection

log = logging.getLogger(__name__)

THRESHOLD = 4 * 1024 * 1024
"""Log size that triggers a checkpoint (SQLite's own default is 1,000 pages, ~4 MiB)."""
POLL = 1.0
"""Seconds between looks at the log's size."""


class WalCheckpointer:
    """`start()`, `request()` (checkpoint soon), `stop()`; one daemon thread."""

    def __init__(self, database: Path, threshold: int = THRESHOLD, poll: float = POLL) -> None:
        self.database = database
        self.wal = Path(f"{database}-wal")
        self.threshold = threshold
        self.poll = poll
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._seen: tuple[int, int] | None = None
        """The log's (size, mtime) at the last checkpoint: the file keeps its size once grown."""
        self.done = 0
        """Checkpoints run (observable in tests)."""

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="harnessdesk-wal", daemon=True)
        self._thread.start()

    def request(self) -> None:
        """Checkpoint soon (a turn ended): never waits."""
        self._wake.set()

    def stop(self, bound: float = 5.0) -> None:
        """End the thread (a checkpoint in progress may finish within `bound` seconds)."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(bound)

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while not self._stopping.is_set():
                asked = self._wake.wait(self.poll)
                self._wake.clear()
                if self._stopping.is_set():
                    return
                if not asked and not self._grown():
                    continue
                try:
                    conn = conn or open_connection(str(self.database))
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self._seen = self._stat()
                    self.done += 1
                except Exception as exc:  # never end silently: a full disk keeps it in the log
                    log.warning("WAL checkpoint failed (the data stays in the log): %s", exc)
        finally:
            if conn is not None:
                conn.close()

    def _grown(self) -> bool:
        """Written since the last checkpoint, and past the threshold."""
        now = self._stat()
        return now[0] >= self.threshold and now != self._seen

    def _stat(self) -> tuple[int, int]:
        try:
            info = os.stat(self.wal)
        except OSError:
            return (0, 0)
        return (info.st_size, info.st_mtime_ns)
