"""The store's writer thread: every database operation runs on it, in submission order.

Group commit: a write opens a transaction that is committed as soon as the queue is empty —
or, while writes keep coming, after at most `linger_ms` (or at a `commit()` step boundary, or
when a read arrives). A burst of events thus costs one transaction per `linger_ms`, while a lone
event is durable about a millisecond after it was appended. Every
write carries a ticket; after each transaction the thread reports on the event loop which
tickets are settled and which of them failed (`Settled`), which is what lets the engine
publish a frame only once its event is on disk (docs/decisions.md "Durable before visible").

The thread never dies: any SQLite error fails the writes of the open transaction with a typed
`StoreError`, the sessions they belonged to are poisoned until the event loop has rewound them
(`reset`), and the next write simply tries again — so a full disk recovers once space returns.
Reads run in their own short transaction after the pending batch is committed, so they only
ever see durable data. Every wait of the event loop on this thread has a bound.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from host.engine.store.base import Settled, StoreClosed, StoreError, StoreTimeout
from host.engine.store.faults import classify, damaged, header_problem, quick_check
from host.engine.store.schema import create_fresh, create_schema, open_connection
from host.engine.store.wal import WalCheckpointer
from host.workers import settle

log = logging.getLogger(__name__)

T = TypeVar("T")
_STOP = "stop"

CALL_TIMEOUT = 30.0
"""Bound on one read or flush (a stuck disk or a lock held by another process)."""
OPEN_TIMEOUT = 15.0
"""Bound on opening the file: connect, the start-up check (0.5 s), the schema. Above SQLite's
own 5 s lock wait, so a file locked by another program gets that more precise message."""
GIVE_UP_LOOK = 0.05
"""Seconds between two looks, in `wait_ended`, at whether the waiting read was given up."""
STALL_TIMEOUT = 30.0
"""Closing gives up after this long without the writer finishing a single operation (a stuck
disk); while it keeps working through a backlog it is waited for. A SIGTERM shutdown passes a
hard bound instead."""


@dataclass
class _Batch:
    tickets: list[int] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)
    dropped: set[int] = field(default_factory=set)
    failed_sessions: set[str] = field(default_factory=set)
    error: StoreError | None = None
    deadline: float = 0.0
    """When the batch must commit (`linger` after its first write)."""


class Writer:
    """One SQLite connection owned by one thread, fed through a queue."""

    def __init__(
        self,
        path: Path,
        linger_ms: float,
        on_settled: Callable[[Settled], None],
        *,
        call_timeout: float = CALL_TIMEOUT,
        check_budget: float | None = None,
        open_timeout: float = OPEN_TIMEOUT,
    ) -> None:
        self.path = path
        self._linger = linger_ms / 1000.0
        self._on_settled = on_settled
        """Called on the event loop after each transaction with the tickets it settled."""
        self.call_timeout = call_timeout
        self.open_timeout = open_timeout
        self._check_budget = check_budget
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ticket = 0
        self._poisoned: dict[str, StoreError] = {}
        """Thread side: sessions whose writes are dropped until the loop sends `reset`."""
        self._batch = _Batch()
        self._in_tx = False
        self.closed = False
        self.transactions = 0
        """Number of write transactions committed (batching is observable in tests)."""
        self.failures = 0
        """Number of transactions that failed (the thread lived on)."""
        self.done_ops = 0
        """Operations the thread has finished (progress, for bounded waits that allow a backlog)."""
        self.fully_checked = False
        """Whether the start-up integrity check covered the whole file within its budget."""
        self.wal = WalCheckpointer(path)
        """Checkpoints off the writer's thread (its connection has automatic ones off)."""
        self.ended = 0
        """The last ticket whose transaction has ended, committed or rolled back (set on the
        writer's thread; other threads read it, or wait for it with `wait_ended`)."""
        self._ended_changed = threading.Condition()

    # ---- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the file on the thread; a stuck disk fails this after `open_timeout` seconds."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        ready: asyncio.Future[None] = loop.create_future()
        self._thread = threading.Thread(
            target=self._run, args=(loop, ready), name="harnessdesk-store", daemon=True
        )
        self._thread.start()
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.open_timeout)
        except TimeoutError:
            # The thread is stuck in the OS. Should it ever return, it closes the file and ends.
            self.closed = True
            ready.add_done_callback(lambda f: f.cancelled() or f.exception())
            self._queue.put((_STOP, loop.create_future(), loop))
            raise StoreTimeout(
                f"the database {self.path} did not open within {self.open_timeout:g}s;"
                " the disk may be stuck or another program holds the file"
            ) from None
        self.wal.start()

    async def stop(self, bound: float | None = None) -> None:
        """Commit what is queued, checkpoint and close. Gives up after `bound` seconds, or by
        default after `STALL_TIMEOUT` seconds in which the writer made no progress."""
        if self.closed or self._thread is None:
            return
        self.closed = True
        loop = asyncio.get_running_loop()
        await asyncio.to_thread(self.wal.stop, 5.0 if bound is None else min(5.0, bound / 2))
        fut: asyncio.Future[None] = loop.create_future()
        self._queue.put((_STOP, fut, loop))
        end = None if bound is None else loop.time() + bound
        seen, still = self.done_ops, loop.time()
        while not fut.done():
            step = 0.5 if end is None else max(0.0, min(0.5, end - loop.time()))
            await asyncio.wait({fut}, timeout=step)
            if fut.done():
                break
            if self.done_ops != seen:
                seen, still = self.done_ops, loop.time()
            if (end is not None and loop.time() >= end) or loop.time() - still > STALL_TIMEOUT:
                log.warning("the store did not close in time; leaving the rest to the OS")
                return
        await asyncio.to_thread(self._thread.join, 5.0)

    # ---- what the event loop submits ------------------------------------------------------

    @property
    def submitted(self) -> int:
        """The last ticket handed out."""
        return self._ticket

    def write(self, session_id: str | None, fn: Callable[[sqlite3.Connection], None]) -> int:
        """Queue `fn(conn)` into the current batch; returns its ticket (see `Settled`)."""
        if self.closed:
            raise StoreClosed("the store is closed")
        self._ticket += 1
        self._queue.put(("w", self._ticket, session_id, fn))
        return self._ticket

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(conn)` on the writer thread after every write submitted so far is committed."""
        if self.closed:
            raise StoreClosed("the store is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        self._queue.put(("r", fn, fut, loop))
        return await self._bounded(fut, "a database read")

    def commit(self) -> None:
        if not self.closed:
            self._queue.put(("c", None, None, False))

    def reset(self, session_ids: Iterable[str]) -> None:
        """The loop has rewound these sessions: writes queued from now on are fresh again."""
        if not self.closed:
            self._queue.put(("reset", frozenset(session_ids)))

    async def flush(self, checkpoint: bool = False) -> None:
        """Wait until everything submitted is settled (failures go to `on_settled`, not here)."""
        if self.closed:
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._queue.put(("c", fut, loop, checkpoint))
        await self._bounded(fut, "saving")

    def wait_ended(self, ticket: int, deadline: float, given_up: Callable[[], bool]) -> bool:
        """From another thread (a read lane): wait until every write up to `ticket` has ended,
        so a read transaction begun now sees them; False at `deadline` (monotonic) or once
        `given_up()`. No event-loop round trip: docs/decisions/reads-wait-on-their-thread.md."""
        with self._ended_changed:
            while self.ended < ticket:
                left = deadline - time.monotonic()
                if left <= 0 or given_up():
                    return False
                self._ended_changed.wait(min(left, GIVE_UP_LOOK))
        return True

    async def _bounded(self, fut: asyncio.Future[T], what: str) -> T:
        try:
            return await asyncio.wait_for(fut, self.call_timeout)
        except TimeoutError:
            raise StoreTimeout(
                f"the database {self.path} did not answer within {self.call_timeout:g}s ({what});"
                " the disk may be stuck or another program holds the file"
            ) from None

    # ---- the thread -----------------------------------------------------------------------

    def _run(self, loop: asyncio.AbstractEventLoop, ready: asyncio.Future[None]) -> None:
        try:
            conn = self._open()
        except Exception as exc:
            self._reply(loop, ready, None, classify(exc, self.path, opening=True))
            return
        self._reply(loop, ready, None, None)
        while True:
            try:
                if self._batch.tickets:
                    op = self._queue.get(timeout=max(0.0, self._batch.deadline - time.monotonic()))
                else:
                    op = self._queue.get()
            except queue.Empty:
                self._end_batch(conn)
                continue
            kind = op[0]
            self.done_ops += 1
            try:
                if kind == "w":
                    self._write(conn, op[1], op[2], op[3])
                elif kind == "r":
                    self._end_batch(conn)
                    self._read(conn, op[1], op[2], op[3])
                elif kind == "c":
                    _, fut, floop, checkpoint = op
                    self._end_batch(conn)
                    if checkpoint:
                        self.wal.request()  # on its own thread: the writer never waits for it
                    if fut is not None:
                        self._reply(floop, fut, None, None)
                elif kind == "reset":
                    for sid in op[1]:
                        self._poisoned.pop(sid, None)
                elif kind == _STOP:
                    self._end_batch(conn)
                    self._checkpoint(conn, "TRUNCATE")
                    conn.close()
                    self._reply(op[2], op[1], None, None)
                    return
            except Exception as exc:  # never let the thread die; the op's caller was answered
                log.exception("store writer: unexpected failure handling %r", kind)
                self._lose_transaction(conn, classify(exc, self.path))
            if self._batch.tickets and self._queue.empty():
                self._end_batch(conn)  # group commit: nothing else is waiting to join this one

    def _open(self) -> sqlite3.Connection:
        """Connect, check the file within the start-up budget, then create the schema."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            create_fresh(self.path)
        problem = header_problem(self.path)
        if problem is not None:
            raise damaged(self.path, problem)
        conn = open_connection(str(self.path))
        conn.execute("PRAGMA wal_autocheckpoint=0")  # host/engine/store/wal.py does them
        try:
            if self._check_budget is not None:
                problems = quick_check(conn, self._check_budget)
                self.fully_checked = problems is not None
                if problems:
                    raise damaged(self.path, problems[0])
            create_schema(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _write(
        self,
        conn: sqlite3.Connection,
        ticket: int,
        session_id: str | None,
        fn: Callable[[sqlite3.Connection], None],
    ) -> None:
        batch = self._batch
        if not batch.tickets:
            batch.deadline = time.monotonic() + self._linger
        batch.tickets.append(ticket)
        if session_id is not None:
            batch.sessions.add(session_id)
            if session_id in self._poisoned:
                batch.dropped.add(ticket)  # stale: queued before the loop rewound the session
                return
        try:
            if not self._in_tx:
                conn.execute("BEGIN")
                self._in_tx = True
            conn.execute("SAVEPOINT w")
        except Exception as exc:
            self._lose_transaction(conn, classify(exc, self.path))
            return
        try:
            fn(conn)
        except Exception as exc:
            error = classify(exc, self.path)
            if isinstance(exc, sqlite3.IntegrityError | ValueError | TypeError | KeyError):
                # This write alone is wrong (a seq gap, bad data): undo it, keep the batch.
                try:
                    conn.execute("ROLLBACK TO w")
                    conn.execute("RELEASE w")
                except Exception:
                    self._lose_transaction(conn, error)
                    return
                log.error("store write failed for %s: %s", session_id, exc)
                batch.dropped.add(ticket)
                batch.error = batch.error or error
                if session_id is not None:
                    batch.failed_sessions.add(session_id)
                    self._poisoned[session_id] = error
                return
            # An I/O-class failure (full disk, damaged file): the whole transaction is lost.
            self._lose_transaction(conn, error)
            return
        conn.execute("RELEASE w")

    def _lose_transaction(self, conn: sqlite3.Connection, error: StoreError) -> None:
        """Roll back; every write of the batch is dropped and its sessions poisoned; report now."""
        self._rollback(conn)
        batch = self._batch
        self.failures += 1
        log.error("store transaction failed: %s", error)
        batch.error = batch.error or error
        batch.dropped.update(batch.tickets)
        for sid in batch.sessions:
            if sid not in self._poisoned:
                batch.failed_sessions.add(sid)
                self._poisoned[sid] = error
        self._report()

    def _end_batch(self, conn: sqlite3.Connection) -> None:
        """Commit the open transaction (if any) and report the batch."""
        if self._in_tx:
            try:
                conn.execute("COMMIT")
            except Exception as exc:
                self._lose_transaction(conn, classify(exc, self.path))
                return
            self._in_tx = False
            self.transactions += 1
        self._report()

    def _report(self) -> None:
        batch, self._batch = self._batch, _Batch()
        if batch.tickets:
            with self._ended_changed:
                self.ended = max(self.ended, max(batch.tickets))
                self._ended_changed.notify_all()
        if batch.tickets and self._loop is not None:
            settled = Settled(
                through=max(batch.tickets),
                dropped=frozenset(batch.dropped),
                error=batch.error,
                failed_sessions=frozenset(batch.failed_sessions),
            )
            self._call_loop(self._loop, self._on_settled, settled)

    def _rollback(self, conn: sqlite3.Connection) -> None:
        if self._in_tx or conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except Exception as exc:  # already rolled back by SQLite, or the file is gone
                log.debug("rollback after a failure: %s", exc)
        self._in_tx = False

    def _read(
        self,
        conn: sqlite3.Connection,
        fn: Callable[[sqlite3.Connection], Any],
        fut: asyncio.Future[Any],
        floop: asyncio.AbstractEventLoop,
    ) -> None:
        failure: BaseException | None = None
        value = None
        try:
            conn.execute("BEGIN")
            value = fn(conn)
            conn.execute("COMMIT")
        except Exception as exc:
            self._rollback(conn)
            failure = exc if isinstance(exc, StoreError) else classify(exc, self.path, reading=True)
        self._reply(floop, fut, value, failure)

    def _checkpoint(self, conn: sqlite3.Connection, mode: str) -> None:
        """Copy the WAL into the database file; a failure (full disk) loses nothing: the WAL keeps it."""
        try:
            conn.execute(f"PRAGMA wal_checkpoint({mode})")
        except Exception as exc:
            log.warning("WAL checkpoint failed (the data stays in the WAL): %s", exc)

    @staticmethod
    def _call_loop(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> None:
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:
            pass  # the loop is gone; nobody is waiting any more

    @classmethod
    def _reply(cls, loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], value: Any, exc: Any) -> None:
        cls._call_loop(loop, settle, fut, value, exc)
