"""A closed store answers a wait for a write only when the write's outcome is known: at once
when it is settled, else `StoreClosed` — the same for `settled` (an RPC's own write), `flush`
and `Journal.saved`, never a guessed "not saved" (docs/decisions/reads-wait-on-their-thread.md)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import pytest

from host.engine.sessions.bus import Bus
from host.engine.sessions.journal import Journal
from host.engine.store import SqliteStore, StoreClosed
from tests.engine.conftest import ev, header

BOUND = 30.0
"""A bound on every wait (never a timed assertion)."""


def _title(title: str) -> dict:
    return {"title": title, "source": {"kind": "user"}}


async def _closing_with_a_write_queued(store: SqliteStore) -> tuple[asyncio.Future[None], threading.Event]:
    """Hold the writer's thread, then start closing: (the close, its release)."""
    entered, release = threading.Event(), threading.Event()

    def slow(conn: sqlite3.Connection) -> None:
        entered.set()
        release.wait(BOUND)

    store._writer.write(None, slow)
    assert await asyncio.to_thread(entered.wait, BOUND)
    return asyncio.ensure_future(store.close()), release


async def test_settled_and_flush_on_a_closed_store(store: SqliteStore) -> None:
    store.register(header("s1"))
    early = store.append("s1", [ev(0, "session/title", _title("settled before the close"))])
    await asyncio.wait_for(store.settled(early), BOUND)
    closing, release = await _closing_with_a_write_queued(store)
    try:
        late = store.append("s1", [ev(1, "session/title", _title("queued behind the held write"))])
        await asyncio.sleep(0)
        assert store._writer.closed
        await store.settled(early)  # known: settled
        with pytest.raises(StoreClosed):
            await store.settled(late)  # not known yet: not "not saved"
        with pytest.raises(StoreClosed):
            await store.flush()
    finally:
        release.set()
        await asyncio.wait_for(closing, BOUND)
    await store.settled(late)  # closing committed it: known now
    await store.flush()


async def test_journal_saved_on_a_closing_store_raises_rather_than_answering_not_shown(
    store: SqliteStore,
) -> None:
    bus = Bus()
    store.on_settled(lambda settled: bus.settle(settled.through, settled.dropped))
    store.register(header("s1"))
    journal = Journal(header("s1"), store, bus)
    journal.extend([ev(0, "session/title", _title("first"))])
    assert await asyncio.wait_for(journal.saved(0), BOUND)
    closing, release = await _closing_with_a_write_queued(store)
    try:
        journal.extend([ev(1, "session/title", _title("second"))])
        await asyncio.sleep(0)
        with pytest.raises(StoreClosed):
            await journal.saved(1)
    finally:
        release.set()
        await asyncio.wait_for(closing, BOUND)
    assert await journal.saved(1)  # the close committed it, and it was shown
