"""Read connections on threads of their own, for the reads a person waits for
(docs/decisions/performance-under-load.md, docs/decisions/search-lane.md).

The writer's thread runs reads in submission order, so a `session.list` or a search typed while
ten sessions stream waited behind every queued write and cut their group commits short. Reads
here run on other connections to the same WAL file instead, beside the writer: WAL lets a
reader see the last committed state while a write transaction is open. Read-your-writes is kept:
a read names the last write submitted before it (`after`), and its thread waits until the
writer has ended that write's transaction (`writes_ended`) before it begins — a wait for
commits, not a place in the writer's queue, and not a round trip through the event loop, which
is busy with the streams while many sessions run (docs/decisions/reads-wait-on-their-thread.md).

A read whose caller gives up (cancelled: the client went away or asked again; or past
`call_timeout`) is abandoned: skipped if it has not started, else its statement is interrupted
(`sqlite3.Connection.interrupt`, and a progress handler for the moment between two statements),
so the connection is free for the next read instead of finishing work nobody waits for.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
import time
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
"""Read connections for the screen's reads: a long history page leaves the other for a list."""
PROGRESS_STEPS = 10_000
"""SQLite VM steps between two looks at whether the running read was abandoned."""


WritesEnded = Callable[[int, float, Callable[[], bool]], bool]
"""`(ticket, deadline, given_up)`: wait, on a read lane's thread, until every write through
`ticket` has ended (`Writer.wait_ended`); False when `deadline` passed or `given_up()`."""


class _Read:
    """One queued read; `conn` is set (under the reader's lock) only while a thread runs it."""

    __slots__ = ("abandoned", "after", "conn", "deadline", "fn", "fut")

    def __init__(
        self, fn: Callable[[sqlite3.Connection], Any], fut: asyncio.Future[Any], after: int, deadline: float
    ) -> None:
        self.fn = fn
        self.fut = fut
        self.after = after
        """The last write this read must see (0: none)."""
        self.deadline = deadline
        """When its caller stops waiting (`time.monotonic()`)."""
        self.abandoned = False
        self.conn: sqlite3.Connection | None = None

    def given_up(self) -> bool:
        return self.abandoned

    def stop_requested(self) -> int:
        """The progress handler: non-zero makes SQLite stop the statement (SQLITE_INTERRUPT)."""
        return 1 if self.abandoned else 0


class Reader:
    """`threads` read-only connections, each owned by a daemon thread, fed through one queue."""

    def __init__(
        self,
        path: Path,
        call_timeout: float,
        writes_ended: WritesEnded,
        threads: int = THREADS,
        name: str = "read",
    ) -> None:
        self.path = path
        self.call_timeout = call_timeout
        self._writes_ended = writes_ended
        self.threads = threads
        self.name = name
        self._queue: queue.Queue[_Read | None] = queue.Queue()
        self._lock = threading.Lock()
        self._started: list[threading.Thread] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False
        self.interrupted = 0
        """Reads stopped mid-statement because their caller gave up (observable in tests)."""
        self.skipped = 0
        """Reads dropped from the queue before they started, their caller gone."""

    async def call(self, fn: Callable[[sqlite3.Connection], T], after: int = 0) -> T:
        """Run `fn(conn)` in one read transaction, begun once every write through ticket `after`
        has ended; bounded by `call_timeout`. Cancelling the caller abandons the read
        (interrupted if it is running).

        The answer costs the event loop one callback and the task's wake-up: no `wait_for`
        wrapper (two more loop passes), a timer bounds the wait instead."""
        if self.closed:
            raise StoreClosed("the store is closed")
        loop = asyncio.get_running_loop()
        if not self._started:
            self._loop = loop
            for number in range(self.threads):
                thread = threading.Thread(
                    target=self._run, name=f"harnessdesk-store-{self.name}-{number}", daemon=True
                )
                thread.start()
                self._started.append(thread)
        fut: asyncio.Future[T] = loop.create_future()
        op = _Read(fn, fut, after, time.monotonic() + self.call_timeout)
        self._queue.put(op)
        timer = loop.call_later(self.call_timeout, self._expire, op)
        try:
            return await fut
        except asyncio.CancelledError:
            self._abandon(op)
            raise
        finally:
            timer.cancel()

    def _expire(self, op: _Read) -> None:
        """The bound passed: abandon the read and fail its caller."""
        if op.fut.done():
            return
        self._abandon(op)
        op.fut.set_exception(
            StoreTimeout(
                f"the database {self.path} did not answer within {self.call_timeout:g}s (a database read);"
                " the disk may be stuck or another program holds the file"
            )
        )

    def stop(self) -> None:
        """End the threads after the reads already queued (never waits for them)."""
        if self.closed:
            return
        self.closed = True
        for _ in self._started:
            self._queue.put(None)

    def _abandon(self, op: _Read) -> None:
        with self._lock:
            op.abandoned = True
            if op.conn is not None:
                op.conn.interrupt()  # only ever this read's statement: `conn` is cleared after it

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        while (op := self._queue.get()) is not None:
            value: Any = None
            failure: BaseException | None = None
            try:
                if conn is None:
                    conn = open_connection(str(self.path))
                    conn.execute("PRAGMA query_only=1")
                if op.after and not self._writes_ended(op.after, op.deadline, op.given_up):
                    op.abandoned = True  # its caller has stopped waiting (bound passed, or gone)
                with self._lock:
                    if op.abandoned:
                        self.skipped += 1
                        continue
                    op.conn = conn
                conn.set_progress_handler(op.stop_requested, PROGRESS_STEPS)
                conn.execute("BEGIN")
                try:
                    value = op.fn(conn)
                finally:
                    conn.execute("COMMIT" if not op.abandoned else "ROLLBACK")
            except Exception as exc:
                if op.abandoned and conn is not None:
                    self._after_interrupt(conn, exc)
                else:
                    failure = classify(exc, self.path, reading=True)
                    conn = self._drop(conn)
            finally:
                with self._lock:
                    op.conn = None
                if conn is not None:
                    conn.set_progress_handler(None, 0)
            self._reply(op.fut, value, failure)
        if conn is not None:
            conn.close()

    def _after_interrupt(self, conn: sqlite3.Connection, exc: Exception) -> None:
        """An abandoned read stopped: end its transaction, keep the connection (nobody waits)."""
        with self._lock:  # several threads count here
            self.interrupted += 1
        log.debug("an abandoned %s read stopped: %s", self.name, exc)
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error as rollback_exc:
                log.debug("rolling back an abandoned read: %s", rollback_exc)

    @staticmethod
    def _drop(conn: sqlite3.Connection | None) -> None:
        """A damaged or replaced file: close the connection, open afresh next time."""
        if conn is not None:
            try:
                conn.close()
            except Exception as close_exc:
                log.debug("closing the read connection: %s", close_exc)
        return None

    def _reply(self, fut: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
        if self._loop is None:
            return
        try:
            self._loop.call_soon_threadsafe(settle, fut, value, exc)
        except RuntimeError:
            pass  # the loop is gone; nobody is waiting any more
