"""The SQLite store: one file, WAL, synchronous=NORMAL, one writer thread.

Every database operation runs on the writer thread, in submission order: writes are batched into
one transaction per ≤ `batch_ms` (or until `commit()` marks a step boundary); reads run on the
same connection, so they see every write submitted before them, committed or not. The event loop
only enqueues (microseconds) and awaits futures; it never touches the disk.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from contract.content import AttachmentRef
from contract.events import SURFACE_TYPES, SessionEvent
from host.engine.paging import page_rows
from host.engine.store import copy, search
from host.engine.store.base import (
    ExportAttachment,
    ExportEvent,
    ExportHeader,
    ExportRow,
    Page,
    SearchResult,
    SeqGapError,
    SessionExists,
    SessionHeader,
    StoreError,
    UnknownSession,
)
from host.engine.store.schema import (
    HEADER_COLUMNS,
    apply_event,
    connect,
    header_from,
    insert_header,
    read_header,
)

log = logging.getLogger(__name__)

DB_FILE = "harnessdesk.sqlite3"
T = TypeVar("T")
_STOP = object()
EXPORT_CHUNK = 500


def _settle(fut: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(value)


class SqliteStore:
    """`Store` on one SQLite file under the data directory."""

    def __init__(
        self,
        path: Path,
        batch_ms: float = 50.0,
        on_error: Callable[[str | None, Exception], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self._batch = batch_ms / 1000.0
        self.on_error = on_error
        """Called on the event loop with (session id, exception) when a queued write fails."""
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._next_seq: dict[str, int] = {}
        self._lazy: dict[str, SessionHeader] = {}
        self._closed = False
        self.transactions = 0
        """Number of write transactions committed (batching is observable in tests)."""

    @classmethod
    def in_dir(cls, data_dir: Path, **kwargs: Any) -> SqliteStore:
        return cls(Path(data_dir) / DB_FILE, **kwargs)

    # ---- lifecycle ------------------------------------------------------------------------

    async def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        loop = asyncio.get_running_loop()
        self._thread = threading.Thread(
            target=self._run, args=(loop, ready), name="harnessdesk-store", daemon=True
        )
        self._thread.start()
        await ready

    async def close(self) -> None:
        if self._closed or self._thread is None:
            return
        self._closed = True
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._queue.put((_STOP, fut, loop))
        await fut
        await asyncio.to_thread(self._thread.join)

    # ---- the writer thread ----------------------------------------------------------------

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
            if self.on_error is not None:
                loop.call_soon_threadsafe(self.on_error, session_id, exc)
            return
        conn.execute("RELEASE w")

    @staticmethod
    def _reply(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], value: Any, exc: Any) -> None:
        try:
            loop.call_soon_threadsafe(_settle, fut, value, exc)
        except RuntimeError:
            pass  # the loop is gone; nobody is waiting any more

    def _submit_write(self, session_id: str | None, fn: Callable[[sqlite3.Connection], None]) -> None:
        if self._closed:
            raise StoreError("store is closed")
        self._queue.put(("w", session_id, fn))

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(conn)` on the writer thread after every write submitted so far."""
        if self._closed:
            raise StoreError("store is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        self._queue.put(("r", fn, fut, loop))
        return await fut

    # ---- writes ---------------------------------------------------------------------------

    def register(self, header: SessionHeader) -> None:
        if header.id in self._next_seq:
            raise SessionExists(header.id)
        self._next_seq[header.id] = 0
        self._lazy[header.id] = header

    def known(self, session_id: str) -> bool:
        return session_id in self._next_seq

    def next_seq(self, session_id: str) -> int:
        if session_id not in self._next_seq:
            raise UnknownSession(session_id)
        return self._next_seq[session_id]

    def append(self, session_id: str, events: Sequence[SessionEvent]) -> None:
        if not events:
            return
        expected = self.next_seq(session_id)
        for i, event in enumerate(events):
            if event.seq != expected + i:
                raise SeqGapError(f"{session_id}: expected seq {expected + i}, got {event.seq}")
        self._next_seq[session_id] = expected + len(events)
        header = self._lazy.pop(session_id, None)
        batch = list(events)

        def write(conn: sqlite3.Connection) -> None:
            if header is not None:
                insert_header(conn, header)
            for event in batch:
                raw = event.model_dump_json(by_alias=True, exclude_none=True)
                apply_event(conn, session_id, event.seq, event.type, event.time, raw, json.loads(raw))

        self._submit_write(session_id, write)

    def put_attachment(self, ref: AttachmentRef, data: bytes) -> None:
        self._submit_write(None, lambda conn: copy.write_attachment(conn, ref, data))

    def commit(self) -> None:
        if not self._closed:
            self._queue.put(("c", None, None, False))

    async def flush(self, checkpoint: bool = False) -> None:
        if self._closed:
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._queue.put(("c", fut, loop, checkpoint))
        await fut

    # ---- reads ----------------------------------------------------------------------------

    async def header(self, session_id: str) -> SessionHeader | None:
        lazy = self._lazy.get(session_id)
        if lazy is not None:
            return lazy
        found = await self.call(lambda conn: read_header(conn, session_id))
        if found is not None and session_id not in self._next_seq:
            self._next_seq[session_id] = found.last_seq + 1
        return found

    async def headers(self) -> list[SessionHeader]:
        def read(conn: sqlite3.Connection) -> list[SessionHeader]:
            rows = conn.execute(f"SELECT {HEADER_COLUMNS} FROM sessions").fetchall()
            return [header_from(conn, row) for row in rows]

        found = await self.call(read)
        return found + [h for h in self._lazy.values() if h.id not in {f.id for f in found}]

    async def events(self, session_id: str, start: int = 0, end: int | None = None) -> list[SessionEvent]:
        stop = end if end is not None else 1 << 62

        def read(conn: sqlite3.Connection) -> list[SessionEvent]:
            rows = conn.execute(
                "SELECT json FROM events WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq",
                (session_id, start, stop),
            ).fetchall()
            return [SessionEvent.model_validate_json(r[0]) for r in rows]

        return await self.call(read)

    async def surface_events(self, session_id: str) -> list[SessionEvent]:
        return await self.events_of_types(session_id, tuple(sorted(SURFACE_TYPES)))

    async def events_of_types(self, session_id: str, types: tuple[str, ...]) -> list[SessionEvent]:
        marks = ",".join("?" * len(types))

        def read(conn: sqlite3.Connection) -> list[SessionEvent]:
            rows = conn.execute(
                f"SELECT json FROM events WHERE session_id = ? AND type IN ({marks}) ORDER BY seq",
                (session_id, *types),
            ).fetchall()
            return [SessionEvent.model_validate_json(r[0]) for r in rows]

        return await self.call(read)

    async def page(self, session_id: str, before_seq: int | None, max_messages: int) -> Page:
        def read(conn: sqlite3.Connection) -> Page:
            rows, bounds = page_rows(conn, session_id, before_seq, max_messages)
            events = [SessionEvent.model_validate_json(r) for r in rows]
            return Page(events=events, has_more=bounds.has_more, cut=bounds.cut)

        return await self.call(read)

    async def fork_anchor(self, session_id: str, at_seq: int | None) -> int | None:
        return await self.call(lambda conn: copy.fork_anchor(conn, session_id, at_seq))

    async def fork(self, source_id: str, child: SessionHeader, through_seq: int) -> None:
        if child.id in self._next_seq:
            raise SessionExists(child.id)
        self._next_seq[child.id] = through_seq + 1
        try:
            await self.call(lambda conn: copy.fork_copy(conn, source_id, child, through_seq))
        except Exception:
            self._next_seq.pop(child.id, None)
            raise

    async def search(self, query: str, limit: int = 20) -> SearchResult:
        return await self.call(lambda conn: search.search(conn, query, limit))

    async def attachment(self, session_id: str, attachment_id: str) -> tuple[AttachmentRef, bytes] | None:
        return await self.call(lambda conn: copy.read_attachment(conn, attachment_id, session_id))

    # ---- export / import ------------------------------------------------------------------

    async def export_rows(self, session_id: str) -> AsyncIterator[ExportRow]:
        header = await self.header(session_id)
        if header is None:
            raise UnknownSession(session_id)
        yield ExportHeader(json.dumps(header.to_row(), ensure_ascii=False, separators=(",", ":")))
        start = 0
        while True:
            chunk = await self.call(
                lambda conn, s=start: conn.execute(  # type: ignore[misc]
                    "SELECT seq, json FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
                    (session_id, s, EXPORT_CHUNK),
                ).fetchall()
            )
            for _, raw in chunk:
                yield ExportEvent(raw)
            if len(chunk) < EXPORT_CHUNK:
                break
            start = chunk[-1][0] + 1
        ids = await self.call(lambda conn: copy.referenced_attachments(conn, session_id))
        for attachment_id in ids:
            found = await self.call(lambda conn, a=attachment_id: copy.read_attachment(conn, a))  # type: ignore[misc]
            if found is not None:
                yield ExportAttachment(found[0], found[1])

    async def import_rows(self, rows: Iterable[ExportRow] | AsyncIterator[ExportRow]) -> str:
        """Write an exported session back; returns its id. StoreError if it already exists.

        Every row is checked before anything is written, so a bad archive leaves no trace.
        """
        header: SessionHeader | None = None
        events: list[tuple[dict[str, Any], str]] = []
        attachments: list[ExportAttachment] = []
        async for row in _aiter(rows):
            if isinstance(row, ExportHeader):
                if header is not None:
                    raise StoreError("a second header row")
                header = SessionHeader.from_row(json.loads(row.json))
            elif isinstance(row, ExportEvent):
                if header is None:
                    raise StoreError("events before the header")
                ev = json.loads(row.json)
                SessionEvent.model_validate(ev)
                if int(ev["seq"]) != len(events):
                    raise SeqGapError(f"{header.id}: expected seq {len(events)}, got {ev['seq']}")
                events.append((ev, row.json))
            else:
                attachments.append(row)
        if header is None:
            raise StoreError("no header row")
        if self.known(header.id) or await self.header(header.id) is not None:
            raise SessionExists(header.id)
        final = header
        self._next_seq[final.id] = len(events)
        for item in attachments:
            self.put_attachment(item.ref, item.data)
        self._submit_write(final.id, lambda conn: insert_header(conn, final))
        for ev, raw in events:
            self._submit_write(
                final.id,
                lambda conn, e=ev, r=raw: apply_event(  # type: ignore[misc]
                    conn, final.id, e["seq"], e["type"], e["time"], r, e
                ),
            )
        self._submit_write(final.id, lambda conn: copy.finish_import(conn, final))
        await self.flush()
        return final.id


async def _aiter(rows: Iterable[ExportRow] | AsyncIterator[ExportRow]) -> AsyncIterator[ExportRow]:
    if hasattr(rows, "__aiter__"):
        async for row in rows:  # type: ignore[union-attr]
            yield row
    else:
        for row in rows:  # type: ignore[union-attr]
            yield row
