"""The store's read connection (docs/decisions/performance-under-load.md): the reads a person
waits for (list, search, history pages) run beside the writer, not behind it, and still see every
write submitted before them."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable

import pytest

from host.engine.store import SqliteStore, StoreTimeout, search
from host.engine.store.reader import Reader
from host.engine.store.sqlite_store import SEARCH_THREADS
from tests.engine.conftest import ev, header, user_msg

BOUND = 30.0
"""A bound on every wait (never a timed assertion)."""


def _title(title: str) -> dict:
    return {"title": title, "source": {"kind": "user"}}


async def test_writes_commit_while_a_long_read_runs(store: SqliteStore) -> None:
    """A slow search no longer holds the writer (and with it every frame waiting for a commit)."""
    store.register(header("s1"))
    store.append("s1", [ev(0, "session/title", _title("first"))])
    entered, release = threading.Event(), threading.Event()

    def slow_read(conn: sqlite3.Connection) -> list[tuple[str]]:
        entered.set()
        release.wait(BOUND)
        return conn.execute("SELECT title FROM sessions").fetchall()

    reading = asyncio.ensure_future(store.read(slow_read))
    try:
        assert await asyncio.to_thread(entered.wait, BOUND)
        store.append("s1", [ev(1, "session/title", _title("second"))])
        await asyncio.wait_for(store.flush(), BOUND)  # committed while the read is still open
        assert not reading.done()
        listed = await asyncio.wait_for(store.sessions(), BOUND)
        assert [r.title for r in listed] == ["second"]
    finally:
        release.set()
    assert await asyncio.wait_for(reading, BOUND) == [("second",)]  # its transaction began at its SELECT


async def test_a_read_waits_for_the_writes_submitted_before_it(store: SqliteStore) -> None:
    entered, release = threading.Event(), threading.Event()

    def slow(conn: sqlite3.Connection) -> None:
        entered.set()
        release.wait(BOUND)

    store._writer.write(None, slow)
    store.register(header("s1"))
    store.append("s1", [ev(0, "session/title", _title("written before the read"))])
    assert await asyncio.to_thread(entered.wait, BOUND)
    listed = asyncio.ensure_future(store.read(lambda c: c.execute("SELECT title FROM sessions").fetchall()))
    await asyncio.sleep(0.05)
    assert not listed.done()  # the title's write is still queued behind the slow one
    release.set()
    assert await asyncio.wait_for(listed, BOUND) == [("written before the read",)]


async def test_search_and_pages_come_from_the_read_connection(store: SqliteStore) -> None:
    store.register(header("s1"))
    store.append("s1", [ev(0, "user/message", user_msg("a needle in a message", "u0"))])
    assert not store._reader._started
    found = await store.search("needle")
    assert [hit[0] for hit in found.hits] == ["s1"]
    assert (await store.page("s1", None, 10)).rows
    assert [t.name for t in store._reader._started] == [
        "harnessdesk-store-read-0",
        "harnessdesk-store-read-1",
    ]


ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
"""A read that never ends by itself: only an interrupt stops it."""


async def until(check: Callable[[], bool]) -> None:
    """Wait (bounded) until `check()` holds: a thread counts after it answered. A bound on the
    wait, never a timed assertion."""
    async with asyncio.timeout(BOUND):
        while True:
            if check():
                return
            await asyncio.sleep(0.01)


def endless(entered: threading.Event) -> Callable[[sqlite3.Connection], object]:
    def read(conn: sqlite3.Connection) -> object:
        entered.set()
        return conn.execute(ENDLESS).fetchone()

    return read


async def test_an_abandoned_read_is_interrupted_and_its_connection_reads_on(store: SqliteStore) -> None:
    """docs/decisions/search-lane.md: a caller that gives up stops its statement."""
    reader = Reader(store.path, BOUND, store._writer.wait_ended, threads=1, name="test")
    try:
        entered = threading.Event()
        running = asyncio.ensure_future(reader.call(endless(entered)))
        assert await asyncio.to_thread(entered.wait, BOUND)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        # one thread: this answers only because the endless statement was stopped
        assert await reader.call(lambda c: c.execute("SELECT 7").fetchone()) == (7,)
        assert reader.interrupted == 1
    finally:
        reader.stop()


async def test_a_read_past_its_bound_fails_typed_and_is_stopped(store: SqliteStore) -> None:
    reader = Reader(store.path, 0.5, store._writer.wait_ended, threads=1, name="test")
    try:
        with pytest.raises(StoreTimeout):
            await reader.call(endless(threading.Event()))
        assert await asyncio.wait_for(reader.call(lambda c: c.execute("SELECT 1").fetchone()), BOUND) == (1,)
        assert reader.interrupted == 1
    finally:
        reader.stop()


async def test_a_queued_read_whose_caller_left_never_runs(store: SqliteStore) -> None:
    reader = Reader(store.path, BOUND, store._writer.wait_ended, threads=1, name="test")
    try:
        entered, ran = threading.Event(), threading.Event()
        first = asyncio.ensure_future(reader.call(endless(entered)))
        assert await asyncio.to_thread(entered.wait, BOUND)
        queued = asyncio.ensure_future(reader.call(lambda c: ran.set()))
        await asyncio.sleep(0)  # queued behind the endless read
        queued.cancel()
        first.cancel()
        await asyncio.gather(first, queued, return_exceptions=True)
        assert await reader.call(lambda c: c.execute("SELECT 2").fetchone()) == (2,)
        assert (reader.interrupted, reader.skipped, ran.is_set()) == (1, 1, False)
    finally:
        reader.stop()


async def test_pages_and_the_list_answer_while_searches_hold_every_search_connection(
    store: SqliteStore,
) -> None:
    """A history page or the session list never queues behind a search (docs/decisions/search-lane.md)."""
    store.register(header("s1"))
    store.append("s1", [ev(0, "user/message", user_msg("a needle in a message", "u0"))])
    entered = [threading.Event() for _ in range(SEARCH_THREADS)]
    held = [asyncio.ensure_future(store._searcher.call(endless(e))) for e in entered]
    try:
        for e in entered:
            assert await asyncio.to_thread(e.wait, BOUND)
        page = await asyncio.wait_for(store.page("s1", None, 10), BOUND)
        assert [row[0] for row in page.rows] == [0]
        assert [s.id for s in await asyncio.wait_for(store.sessions(), BOUND)] == ["s1"]
        waiting = asyncio.ensure_future(store.search("needle"))
        await asyncio.sleep(0.05)
        assert not waiting.done()  # a search waits for the search lane, and only a search
    finally:
        for task in held:
            task.cancel()
        await asyncio.gather(*held, return_exceptions=True)
    found = await asyncio.wait_for(waiting, BOUND)
    assert [hit[0] for hit in found.hits] == ["s1"]
    await until(lambda: store._searcher.interrupted == SEARCH_THREADS)  # both stopped, not left running


async def test_a_search_in_one_session_lets_the_index_lead(store: SqliteStore) -> None:
    """FTS5 is the outer loop of a one-session search: walking the session's messages and
    matching each (the planner's own choice) cost seconds for a long session."""
    store.register(header("s1"))
    store.append("s1", [ev(0, "user/message", user_msg("a needle in a message", "u0"))])
    await store.flush()
    plan = await store.read(
        lambda c: c.execute(
            "EXPLAIN QUERY PLAN " + search.IN_SESSION_SQL, ('"needle"', 0, 10, "s1", 10)
        ).fetchall()
    )
    steps = [row[3] for row in plan]
    assert steps[0].startswith("SCAN search VIRTUAL TABLE"), steps
    assert any(s.startswith("SEARCH m USING INTEGER PRIMARY KEY") for s in steps), steps
    found = await store.search("needle", session_id="s1")
    assert (found.total, [hit[2] for hit in found.hits]) == (1, [0])


def hold_writer(store: SqliteStore) -> tuple[threading.Event, threading.Event]:
    """Queue a write that holds the writer's thread until released: (entered, release)."""
    entered, release = threading.Event(), threading.Event()

    def slow(conn: sqlite3.Connection) -> None:
        entered.set()
        release.wait(BOUND)

    store._writer.write(None, slow)
    return entered, release


async def test_a_search_waits_on_its_own_thread_for_the_writes_before_it(store: SqliteStore) -> None:
    """docs/decisions/reads-wait-on-their-thread.md: the read lane's thread waits for the writer
    to end the transaction of the last write before the read; the event loop keeps no barrier
    for it (each barrier cost the loop a round trip while sessions stream)."""
    entered, release = hold_writer(store)
    store.register(header("s1"))
    store.append("s1", [ev(0, "user/message", user_msg("a needle written before the search", "u0"))])
    assert await asyncio.to_thread(entered.wait, BOUND)
    searching = asyncio.ensure_future(store.search("needle"))
    listing = asyncio.ensure_future(store.sessions())
    await asyncio.sleep(0.05)
    assert not searching.done() and not listing.done()  # both wait for the held transaction
    assert store._barriers == []  # ... on their threads, not on the loop
    release.set()
    found = await asyncio.wait_for(searching, BOUND)
    assert [hit[0] for hit in found.hits] == ["s1"]
    assert [s.id for s in await asyncio.wait_for(listing, BOUND)] == ["s1"]


async def test_a_read_whose_writes_never_end_fails_typed_and_never_runs(store: SqliteStore) -> None:
    entered, release = hold_writer(store)
    reader = Reader(store.path, 0.5, store._writer.wait_ended, threads=1, name="test")
    ran = threading.Event()
    try:
        assert await asyncio.to_thread(entered.wait, BOUND)
        with pytest.raises(StoreTimeout):
            await reader.call(lambda c: ran.set(), after=store._writer.submitted)
        await until(lambda: reader.skipped == 1)  # its thread stopped waiting and dropped it
        assert not ran.is_set()
        assert await asyncio.wait_for(reader.call(lambda c: c.execute("SELECT 3").fetchone()), BOUND) == (3,)
    finally:
        release.set()
        reader.stop()


async def test_a_cancelled_read_stops_waiting_for_the_writer(store: SqliteStore) -> None:
    entered, release = hold_writer(store)
    reader = Reader(store.path, BOUND, store._writer.wait_ended, threads=1, name="test")
    ran = threading.Event()
    try:
        assert await asyncio.to_thread(entered.wait, BOUND)
        waiting = asyncio.ensure_future(reader.call(lambda c: ran.set(), after=store._writer.submitted))
        await asyncio.sleep(0.05)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        # the writer is still held: this answers only because the cancelled read's thread let go
        assert await asyncio.wait_for(reader.call(lambda c: c.execute("SELECT 4").fetchone()), BOUND) == (4,)
        assert (reader.skipped, ran.is_set()) == (1, False)
    finally:
        release.set()
        reader.stop()


async def test_a_read_after_a_write_costs_the_event_loop_few_passes(store: SqliteStore) -> None:
    """docs/decisions/reads-wait-on-their-thread.md: with ten sessions streaming every pass of
    the loop is long, so a search or a list is as slow as the passes it needs. With a write
    pending it used to need seven (the barrier's report, shield, wait_for and task; the read's
    answer, wait_for and task), an own-write wait four. Counted, not timed: the loop's only
    other work here is the store's own callbacks."""
    loop = asyncio.get_running_loop()
    passes = 0
    run_once = loop._run_once  # type: ignore[attr-defined]

    def counted() -> None:
        nonlocal passes
        passes += 1
        run_once()

    store.register(header("s1"))
    seq = iter(range(1000))

    def write() -> int:
        n = next(seq)
        return store.append("s1", [ev(n, "user/message", user_msg(f"a needle {n}", f"u{n}"))])

    write()
    await store.search("needle")  # the lanes' threads started
    loop._run_once = counted  # type: ignore[attr-defined]
    try:
        used: dict[str, list[int]] = {"search": [], "list": [], "settled": []}
        for _ in range(10):
            write()
            before = passes
            assert (await store.search("needle")).hits
            used["search"].append(passes - before)
            write()
            before = passes
            assert await store.sessions()
            used["list"].append(passes - before)
            ticket = write()
            before = passes
            await store.settled(ticket)
            used["settled"].append(passes - before)
    finally:
        del loop._run_once  # type: ignore[attr-defined]
    medians = {k: sorted(v)[len(v) // 2] for k, v in used.items()}
    assert all(m <= 3 for m in medians.values()), used  # the answer, the task; a report at times
