"""The store's writer thread: every database operation runs on it, in submission order.

Writes are batched into one transaction per ≤ `batch_ms` (or until `commit()` marks a step
boundary); reads run on the same connection, so they see every write submitted before them,
committed or not. The event loop only enqueues (microseconds) and awaits futures; it never
touches the disk.
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

from host.engine.store.base import StoreError
from host.engine.store.schema import connect

log = logging.getLogger(__name__)

T = TypeVar("T")
_STOP = object()


def _settle(fut: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(value)


class Writer:
    """One SQLite connection owned by one thread, fed through a queue."""

    def __init__(
        self, path: Path, batch_ms: float, on_error: Callable[[str | None, Exception], None]
    ) -> None:
        self.path = path
        self._batch = batch_ms / 1000.0
        self._on_error = on_error
        """Called on the event loop with (session id, exception) when a queued write fails."""
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.closed = False
        self.transactions = 0
        """Number of write transactions committed (batching is observable in tests)."""

    # ---- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        loop = asyncio.get_running_loop()
        self._thread = threading.Thread(
            target=self._run, args=(loop, ready), name="harnessdesk-store", daemon=True
        )
        self._thread.start()
        await ready

    async def stop(self) -> None:
        if self.closed or self._thread is None:
            return
        self.closed = True
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._queue.put((_STOP, fut, loop))
        await fut
        await asyncio.to_thread(self._thread.join)

    # ---- what the event loop submits ------------------------------------------------------

    def write(self, session_id: str | None, fn: Callable[[sqlite3.Connection], None]) -> None:
        """Queue `fn(conn)` into the current batch; a failure is reported through `on_error`."""
        if self.closed:
            raise StoreError("store is closed")
        self._queue.put(("w", session_id, fn))

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(conn)` on the writer thread after every write submitted so far."""
        if self.closed:
            raise StoreError("store is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        self._queue.put(("r", fn, fut, loop))
        return await fut

    def commit(self) -> None:
        if not self.closed:
            self._queue.put(("c", None, None, False))

    async def flush(self, checkpoint: bool = False) -> None:
        if self.closed:
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._queue.put(("c", fut, loop, checkpoint))
        await fut

    # ---- the thread -----------------------------------------------------------------------

    def _run(self, loop: asyncio.AbstractEventLoop, ready: asyncio.Future[None]) -> None:
        try:
            conn = connect(str(self.path))
        except Exception as exc:
            loop.call_soon_threadsafe(_settle, ready, None, StoreError(f"cannot open store: {exc}"))
            return
        loop.call_soon_threadsafe(_settle, ready, None, None)
        in_tx = False
        deadline = 0.0
        while True:
            try:
                if in_tx:
                    op = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
                else:
                    op = self._queue.get()
            except queue.Empty:
                in_tx = self._commit(conn, in_tx)
                continue
            kind = op[0]
            if kind == "w":
                if not in_tx:
                    conn.execute("BEGIN")
                    in_tx = True
                    deadline = time.monotonic() + self._batch
                self._write(conn, loop, op[1], op[2])
            elif kind == "r":
                _, fn, fut, floop = op
                failure: Exception | None = None
                value = None
                try:
                    value = fn(conn)
                except Exception as e:
                    failure = e
                self._reply(floop, fut, value, failure)
            elif kind == "c":
                _, fut, floop, checkpoint = op
                in_tx = self._commit(conn, in_tx)
                if checkpoint:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                if fut is not None:
                    self._reply(floop, fut, None, None)
            elif kind is _STOP:
                self._commit(conn, in_tx)
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                conn.close()
                self._reply(op[2], op[1], None, None)
                return

    def _commit(self, conn: sqlite3.Connection, in_tx: bool) -> bool:
        if in_tx:
            conn.execute("COMMIT")
            self.transactions += 1
        return False

    def _write(
        self,
        conn: sqlite3.Connection,
        loop: asyncio.AbstractEventLoop,
        session_id: str | None,
        fn: Callable[[sqlite3.Connection], None],
    ) -> None:
        conn.execute("SAVEPOINT w")
        try:
            fn(conn)
        except Exception as exc:
            conn.execute("ROLLBACK TO w")
            conn.execute("RELEASE w")
            log.error("store write failed for %s: %s", session_id, exc)
            loop.call_soon_threadsafe(self._on_error, session_id, exc)
            return
        conn.execute("RELEASE w")

    @staticmethod
    def _reply(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], value: Any, exc: Any) -> None:
        try:
            loop.call_soon_threadsafe(_settle, fut, value, exc)
        except RuntimeError:
            pass  # the loop is gone; nobody is waiting any more
