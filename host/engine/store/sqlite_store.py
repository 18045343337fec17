"""The SQLite store: one file, WAL, synchronous=NORMAL, one writer thread (`writer.Writer`).

The event loop keeps each session's next seq and its lazy (not yet written) header; every
database operation is queued to the writer thread, so the loop never touches the disk. It also
keeps each session's durable position, so that when a transaction fails (a full disk) the
sessions that lost writes are rewound to what is really on disk before anyone appends again.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic_core import PydanticSerializationError

from contract.content import AttachmentRef
from contract.events import STORED, SURFACE_TYPES, SessionEvent
from host.engine.store import blobs, by_type, copy, removal, search
from host.engine.store import grants as grant_rows
from host.engine.store.base import (
    ExportAttachment,
    ExportEvent,
    ExportHeader,
    ExportRow,
    ListedSession,
    Page,
    SearchResult,
    SeqGapError,
    SessionExists,
    SessionHeader,
    Settled,
    StoreClosed,
    StoreError,
    StoreTimeout,
    UnknownSession,
)
from host.engine.store.paging import page_rows
from host.engine.store.reader import Reader
from host.engine.store.schema import apply_event, insert_header, read_header, read_sessions
from host.engine.store.writer import CALL_TIMEOUT, OPEN_TIMEOUT, Writer
from host.textsafe import clean_json

DB_FILE = "harnessdesk.sqlite3"
TRUSTED = {STORED: True}
"""Events read back skip re-checking each event's data against its model (checked when written,
or when imported); the re-check was most of opening a long session's Changes view."""
T = TypeVar("T")
EXPORT_CHUNK = 500
LINGER_MS = 20.0
"""Group commit: the most a transaction stays open while writes keep coming (docs/decisions.md)."""
CHECK_BUDGET = 0.5
SEARCH_THREADS = 2
"""Searches at once (the sidebar's and a find bar's); more wait their turn on the search lane."""
"""Seconds the start-up integrity check may take before the open goes on (docs/decisions.md)."""


class SqliteStore:
    """`Store` on one SQLite file under the data directory."""

    def __init__(
        self,
        path: Path,
        linger_ms: float = LINGER_MS,
        *,
        call_timeout: float = CALL_TIMEOUT,
        check_budget: float | None = CHECK_BUDGET,
        open_timeout: float = OPEN_TIMEOUT,
    ) -> None:
        self.path = Path(path)
        self._settled_listeners: list[Callable[[Settled], None]] = []
        self._writer = Writer(
            self.path,
            linger_ms,
            self._settled,
            call_timeout=call_timeout,
            check_budget=check_budget,
            open_timeout=open_timeout,
        )
        self._next_seq: dict[str, int] = {}
        self._lazy: dict[str, SessionHeader] = {}
        self._registered: dict[str, SessionHeader] = {}
        """Every session created in this process, as registered: while its header insert is
        still queued behind a read, the read cannot see it, yet the session exists."""
        self._durable_next: dict[str, int] = {}
        """Per session: the seq after the last event known to be committed."""
        self._unwritten: dict[str, SessionHeader] = {}
        """Headers whose insert is queued but not yet committed (restored as lazy on failure)."""
        self._inflight: deque[tuple[int, str, int]] = deque()
        """(ticket, session, next seq after it) of every append not yet settled, in ticket order."""
        self._reader = Reader(self.path, call_timeout, self._writer.wait_ended)
        self._searcher = Reader(
            self.path, call_timeout, self._writer.wait_ended, threads=SEARCH_THREADS, name="search"
        )
        """Searches' own connections: a page or a list never queues behind a search
        (docs/decisions/search-lane.md)."""
        self._settled_through = 0
        self._barriers: list[tuple[int, asyncio.Future[None]]] = []
        """Reads waiting until every write before them is settled: (ticket, future)."""

    @classmethod
    def in_dir(cls, data_dir: Path, **kwargs: Any) -> SqliteStore:
        return cls(Path(data_dir) / DB_FILE, **kwargs)

    @property
    def transactions(self) -> int:
        """Number of write transactions committed (batching is observable in tests)."""
        return self._writer.transactions

    async def open(self) -> None:
        await self._writer.start()

    async def close(self, bound: float | None = None) -> None:
        """Commit what is queued and close; give up after `bound` seconds (default: after 30 s
        in which the writer made no progress)."""
        self._reader.stop()
        self._searcher.stop()
        await self._writer.stop(bound)

    @property
    def fully_checked(self) -> bool:
        """Whether the start-up integrity check covered the whole file within its budget."""
        return self._writer.fully_checked

    def _settled(self, settled: Settled) -> None:
        """On the loop: advance durable positions, rewind sessions that lost writes, report."""
        while self._inflight and self._inflight[0][0] <= settled.through:
            ticket, sid, after = self._inflight.popleft()
            if ticket not in settled.dropped:
                self._durable_next[sid] = after
                self._unwritten.pop(sid, None)
        if settled.failed_sessions:
            for sid in settled.failed_sessions:
                durable = self._durable_next.get(sid, 0)
                if sid in self._next_seq:
                    self._next_seq[sid] = durable
                header = self._unwritten.pop(sid, None)
                if header is not None and durable == 0:
                    self._lazy[sid] = header
            self._writer.reset(settled.failed_sessions)
        self._settled_through = max(self._settled_through, settled.through)
        if self._barriers:
            waiting = []
            for ticket, fut in self._barriers:
                if ticket <= self._settled_through:
                    if not fut.done():
                        fut.set_result(None)
                else:
                    waiting.append((ticket, fut))
            self._barriers = waiting
        for listener in self._settled_listeners:
            listener(settled)

    def on_settled(self, listener: Callable[[Settled], None]) -> None:
        """`listener(settled)` after each transaction (the storage health's)."""
        self._settled_listeners.append(listener)

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(conn)` on the writer thread after every write submitted so far."""
        return await self._writer.call(fn)

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(conn)` on the read connection once every write submitted so far has ended:
        what `call` sees, without a place in the writer's queue (docs/decisions/performance-under-load.md)."""
        return await self._reader.call(fn, self._before_read())

    def _before_read(self) -> int:
        """The ticket a read must see (read-your-writes), the open batch told to commit now
        rather than after its linger; the read's thread waits for it
        (docs/decisions/reads-wait-on-their-thread.md)."""
        if self._writer.closed:
            raise StoreClosed("the store is closed")
        ticket = self._writer.submitted
        if ticket <= self._writer.ended:
            return 0
        self._writer.commit()
        return ticket

    async def settled(self, ticket: int) -> None:
        """On a closed store: at once when the write is settled, else `StoreClosed` (as a read or
        a flush): its outcome is not known here, and "not saved" would be a guess."""
        if ticket <= self._settled_through:
            return
        if self._writer.closed:
            raise StoreClosed("the store is closed")
        await self._barrier(ticket, "saving")

    async def _barrier(self, ticket: int, what: str) -> None:
        """Wait (bounded) until every write up to `ticket` is settled; the writes submitted
        after it are not waited for (docs/decisions/many-sessions-streaming.md). A timer bounds
        it, not `wait_for` around a `shield`: those cost two more passes of the event loop for
        every batch a streaming turn waits for (docs/decisions/reads-wait-on-their-thread.md)."""
        if ticket <= self._settled_through:
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._barriers.append((ticket, fut))  # a cancelled one is skipped when it settles
        self._writer.commit()  # end the open batch now rather than after its linger
        timer = loop.call_later(self._writer.call_timeout, self._expire, fut, what)
        try:
            await fut
        finally:
            timer.cancel()

    def _expire(self, fut: asyncio.Future[None], what: str) -> None:
        if not fut.done():
            fut.set_exception(
                StoreTimeout(
                    f"the database {self.path} did not answer within {self._writer.call_timeout:g}s"
                    f" ({what}); the disk may be stuck or another program holds the file"
                )
            )

    # ---- writes ---------------------------------------------------------------------------

    def register(self, header: SessionHeader) -> None:
        if header.id in self._next_seq:
            raise SessionExists(header.id)
        self._next_seq[header.id] = 0
        self._durable_next[header.id] = 0
        self._lazy[header.id] = header
        self._registered[header.id] = header

    def known(self, session_id: str) -> bool:
        return session_id in self._next_seq

    def next_seq(self, session_id: str) -> int:
        if session_id not in self._next_seq:
            raise UnknownSession(session_id)
        return self._next_seq[session_id]

    def append(self, session_id: str, events: Sequence[SessionEvent]) -> int:
        if not events:
            return 0
        expected = self.next_seq(session_id)
        for i, event in enumerate(events):
            if event.seq != expected + i:
                raise SeqGapError(f"{session_id}: expected seq {expected + i}, got {event.seq}")
        self._next_seq[session_id] = expected + len(events)
        header = self._lazy.pop(session_id, None)
        if header is not None:
            self._unwritten[session_id] = header
        batch = list(events)

        def write(conn: sqlite3.Connection) -> None:
            if header is not None:
                insert_header(conn, header)
            for event in batch:
                raw = event_json(event)
                apply_event(conn, session_id, event.seq, event.type, event.time, raw, json.loads(raw))

        ticket = self._writer.write(session_id, write)
        self._inflight.append((ticket, session_id, expected + len(events)))
        return ticket

    def put_attachment(self, ref: AttachmentRef, data: bytes) -> int:
        return self._writer.write(None, lambda conn: copy.write_attachment(conn, ref, data))

    async def put_checkpoint(
        self, session_id: str, turn: int, path: str, sha256: str | None, data: bytes | None
    ) -> None:
        # Its own transaction: committed on return, or the typed store error (a full disk), so a
        # file is never changed without the checkpoint that can undo it (a queued write's failure
        # would only reach `on_settled`).
        await self.call(lambda conn: blobs.write_checkpoint(conn, session_id, turn, path, sha256, data))

    async def checkpoint(self, session_id: str, turn: int, path: str) -> blobs.Checkpoint | None:
        return await self.call(lambda conn: blobs.read_checkpoint(conn, session_id, turn, path))

    def commit(self) -> None:
        self._writer.commit()

    async def flush(self, checkpoint: bool = False) -> None:
        """On a closed store: at once when every write is settled (closing commits what is
        queued), else `StoreClosed`, as `settled`."""
        if self._writer.closed and self._writer.submitted > self._settled_through:
            raise StoreClosed("the store is closed")
        await self._writer.flush(checkpoint)

    async def probe(self) -> None:
        """Commit a transaction that needs fresh pages (64 KiB, freed again at once): a full disk
        fails it, while a write that happens to fit in a half-empty page would not."""

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', zeroblob(65536))")
            conn.execute("DELETE FROM meta WHERE key = 'probe'")

        await self.call(write)

    # ---- reads ----------------------------------------------------------------------------

    async def header(self, session_id: str) -> SessionHeader | None:
        lazy = self._lazy.get(session_id)
        if lazy is not None:
            return lazy
        found = await self.call(lambda conn: read_header(conn, session_id))
        if found is None:
            return self._registered.get(session_id)  # its insert is queued behind this read
        if session_id not in self._next_seq:
            self._next_seq[session_id] = found.last_seq + 1
            self._durable_next[session_id] = found.last_seq + 1
        return found

    async def set_cwd(self, session_id: str, cwd: str) -> None:
        for known in (self._lazy, self._registered, self._unwritten):
            if session_id in known:
                known[session_id].cwd = cwd  # a queued insert writes the new folder
        await self.call(
            lambda conn: conn.execute("UPDATE sessions SET cwd = ? WHERE id = ?", (cwd, session_id))
        )
        await self.flush()

    async def sessions(self) -> list[ListedSession]:
        found = await self.read(read_sessions)
        seen = {f.id for f in found}
        queued = [h.listed() for h in self._registered.values() if h.id not in seen]
        if not queued:  # their inserts are behind this read: rare, and then a few
            return found
        return sorted(found + queued, key=lambda s: (-s.updated_at, s.id))

    async def events(self, session_id: str, start: int = 0, end: int | None = None) -> list[SessionEvent]:
        stop = end if end is not None else 1 << 62

        def read(conn: sqlite3.Connection) -> list[SessionEvent]:
            rows = conn.execute(
                "SELECT json FROM events WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq",
                (session_id, start, stop),
            ).fetchall()
            return [SessionEvent.model_validate_json(r[0], context=TRUSTED) for r in rows]

        return await self.call(read)

    async def surface_events(self, session_id: str) -> list[SessionEvent]:
        return await self.events_of_types(session_id, tuple(sorted(SURFACE_TYPES)))

    async def events_of_types(self, session_id: str, types: tuple[str, ...]) -> list[SessionEvent]:
        def read(conn: sqlite3.Connection) -> list[SessionEvent]:
            rows = by_type.rows_of_types(conn, session_id, types)
            return [SessionEvent.model_validate_json(r, context=TRUSTED) for r in rows]

        # the read lane, not the writer's thread: opening a long session reads every tool result
        # of it (the Changes view), and the streaming sessions' commits must not wait for that
        # (docs/decisions/search-lane.md)
        return await self.read(read)

    async def latest_of_types(self, session_id: str, types: tuple[str, ...]) -> SessionEvent | None:
        def read(conn: sqlite3.Connection) -> SessionEvent | None:
            row = by_type.latest_row_of_types(conn, session_id, types)
            return None if row is None else SessionEvent.model_validate_json(row, context=TRUSTED)

        return await self.read(read)

    async def pending_inbox(self) -> list[str]:
        def read(conn: sqlite3.Connection) -> list[str]:
            rows = conn.execute("SELECT session_id FROM inbox_pending WHERE next_turn > 0").fetchall()
            return [r[0] for r in rows]

        return await self.call(read)

    async def grants(self, session_id: str) -> list[grant_rows.Grant]:
        return await self.call(lambda conn: grant_rows.read_grants(conn, session_id))

    def add_grant(self, session_id: str, grant: grant_rows.Grant) -> int:
        return self._writer.write(session_id, lambda conn: grant_rows.write_grant(conn, session_id, grant))

    def revoke_grants(self, session_id: str, tool: str | None = None, scope: str | None = None) -> int:
        return self._writer.write(
            session_id, lambda conn: grant_rows.delete_grants(conn, session_id, tool, scope)
        )

    async def policy(self, session_id: str) -> str | None:
        return await self.call(lambda conn: grant_rows.read_policy(conn, session_id))

    def set_policy(self, session_id: str, preset: str, created_at: int) -> int:
        return self._writer.write(
            session_id, lambda conn: grant_rows.write_policy(conn, session_id, preset, created_at)
        )

    async def page(self, session_id: str, before_seq: int | None, max_messages: int) -> Page:
        def read(conn: sqlite3.Connection) -> Page:
            rows, bounds = page_rows(conn, session_id, before_seq, max_messages)
            return Page(rows=rows, has_more=bounds.has_more, cut=bounds.cut)

        return await self.read(read)

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
        self._durable_next[child.id] = through_seq + 1

    async def search(
        self, query: str, limit: int = 20, session_id: str | None = None, after: int | None = None
    ) -> SearchResult:
        return await self._searcher.call(
            lambda conn: search.search(conn, query, limit, session_id, after), self._before_read()
        )

    async def attachment(self, session_id: str, attachment_id: str) -> tuple[AttachmentRef, bytes] | None:
        return await self.call(lambda conn: copy.read_attachment(conn, attachment_id, session_id))

    async def delete_session(self, session_id: str) -> None:
        self._lazy.pop(session_id, None)
        await self.call(lambda conn: removal.delete_session(conn, session_id))
        for known in (self._next_seq, self._durable_next, self._registered, self._unwritten):
            known.pop(session_id, None)
        await self.flush()

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
                checked = SessionEvent.model_validate(ev)
                if int(ev["seq"]) != len(events):
                    raise SeqGapError(f"{header.id}: expected seq {len(events)}, got {ev['seq']}")
                events.append((ev, event_json(checked)))  # stored as written: history splices it
            else:
                attachments.append(row)
        if header is None:
            raise StoreError("no header row")
        if self.known(header.id) or await self.header(header.id) is not None:
            raise SessionExists(header.id)
        final = header

        def write(conn: sqlite3.Connection) -> None:
            for item in attachments:
                copy.write_attachment(conn, item.ref, item.data)
            insert_header(conn, final)
            for ev, raw in events:
                apply_event(conn, final.id, ev["seq"], ev["type"], ev["time"], raw, ev)
            copy.finish_import(conn, final)

        await self.call(write)  # one transaction: all of it or nothing
        self._next_seq[final.id] = self._durable_next[final.id] = len(events)
        return final.id


def event_json(event: SessionEvent) -> str:
    """The stored JSON of an event; a lone surrogate (which UTF-8 cannot hold) becomes U+FFFD
    instead of failing the write and every later one (docs/threat-model.md)."""
    try:
        return event.model_dump_json(by_alias=True, exclude_none=True)
    except PydanticSerializationError:
        data = clean_json(event.model_dump(mode="json", by_alias=True, exclude_none=True))
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


async def _aiter(rows: Iterable[ExportRow] | AsyncIterator[ExportRow]) -> AsyncIterator[ExportRow]:
    if hasattr(rows, "__aiter__"):
        async for row in rows:
            yield row
    else:
        for row in rows:
            yield row
