"""The store's read connection (docs/decisions/performance-under-load.md): the reads a person
waits for (list, search, history pages) run beside the writer, not behind it, and still see every
write submitted before them."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

from host.engine.store import SqliteStore
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
