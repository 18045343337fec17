"""A read connection on a thread of its own, for the reads a person waits for
(docs/decisions/performance-under-load.md).

The writer's thread runs reads in submission order, so a `session.list` or a search typed while
ten sessions stream waited behind every queued write and cut their group commits short. Reads
here run on a second connection to the same WAL file instead, beside the writer: WAL lets a
reader see the last committed state while a write transaction is open. Read-your-writes is kept
by the caller (`SqliteStore.read`), which first waits until every write submitted before the
read is settled — a wait for commits, not a place in the writer's queue.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from host.engine.store.base import StoreClosed, StoreTimeout
from host.engine.store.faults import classify
from host.engine.store.schema import open_connection
from host.workers import settle

log = logging.getLogger(__name__)

T = TypeVar("T")


THREADS = 2
"""Read connections: a long search leaves the other for a list or a page."""


class Reader:
    """`threads` read-only connections, each owned by a daemon thread, fed through one queue."""

    def __init__(self, path: Path, call_timeout: float, threads: int = THREADS) -> None:
        self.path = path
        self.call_timeout = call_timeout
        self.threads = threads
        self._queue: queue.Queue[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any]] | None] = (
            queue.Queue()
        )
        self._started: list[threading.Thread] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(conn)` in one read transaction; bounded by `call_timeout`."""
        if self.closed:
            raise StoreClosed("the store is closed")
        loop = asyncio.get_running_loop()
        if not self._started:
            self._loop = loop
            for number in range(self.threads):
                thread = threading.Thread(
                    target=self._run, name=f"harnessdesk-store-read-{number}", daemon=True
                )
                thread.start()
                self._started.append(thread)
        fut: asyncio.Future[T] = loop.create_future()
        self._queue.put((fn, fut))
        try:
            return await asyncio.wait_for(fut, self.call_timeout)
        except TimeoutError:
            raise StoreTimeout(
                f"the database {self.path} did not answer within {self.call_timeout:g}s (a database read);"
                " the disk may be stuck or another program holds the file"
            ) from None

    def stop(self) -> None:
        """End the thread after the reads already queued (never waits for it)."""
        if self.closed:
            return
        self.closed = True
        for _ in self._started:
            self._queue.put(None)

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        while (op := self._queue.get()) is not None:
            fn, fut = op
            value: Any = None
            failure: BaseException | None = None
            try:
                if conn is None:
                    conn = open_connection(str(self.path))
                    conn.execute("PRAGMA query_only=1")
                conn.execute("BEGIN")
                try:
                    value = fn(conn)
                finally:
                    conn.execute("COMMIT")
            except Exception as exc:
                failure = classify(exc, self.path, reading=True)
                if conn is not None:  # a damaged or replaced file: open afresh next time
                    try:
                        conn.close()
                    except Exception as close_exc:
                        log.debug("closing the read connection: %s", close_exc)
                    conn = None
            self._reply(fut, value, failure)
        if conn is not None:
            conn.close()

    def _reply(self, fut: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
        if self._loop is None:
            return
        try:
            self._loop.call_soon_threadsafe(settle, fut, value, exc)
        except RuntimeError:
            pass  # the loop is gone; nobody is waiting any more
