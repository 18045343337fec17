"""The store writer never dies, every wait on it is bounded, and a frame is shown only once its
event is committed. The "full disk" here is SQLite's own page limit on the writer's connection
(`PRAGMA max_page_count`): the same SQLITE_FULL a full disk gives, on any machine (the real
tmpfs case is in test_disk_full.py)."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from contract.events import SessionEvent
from contract.frames import HostSessionStatus, SessionEventFrame
from contract.sessions import TextInput
from host.engine.sessions.bus import Bus
from host.engine.store import DB_FILE, SessionHeader, SqliteStore, StoreError, StoreFull, StoreTimeout
from tests.engine.conftest import events_of, frames_until, is_event
from tests.support.scripted_llm import Reply

WAIT = 30.0
UNLIMITED = 1_073_741_823


def text(words: str) -> list[TextInput]:
    return [TextInput(text=words)]


async def limit_pages(store: SqliteStore, extra: int | None) -> None:
    """Let the database grow by at most `extra` pages (None: no limit)."""

    def apply(conn: sqlite3.Connection) -> None:
        count = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {UNLIMITED if extra is None else count + extra}")

    await store.call(apply)


def committed(db: Path, session_id: str) -> set[int]:
    """Seqs a separate connection can see: exactly what is committed."""
    conn = sqlite3.connect(db)
    try:
        return {r[0] for r in conn.execute("SELECT seq FROM events WHERE session_id = ?", (session_id,))}
    finally:
        conn.close()


async def test_every_frame_shown_is_already_committed(engine_factory: Any, scripted_llm: Any) -> None:
    engine = await engine_factory(tools={})
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    scripted_llm.enqueue(Reply(text="word " * 400, chunk_size=5))
    await engine.agents.prompt(sid, "queue", text("go"), "r1")
    db = engine.parts.store.path
    checked, joined = 0, ""
    while True:
        item = await asyncio.wait_for(mux.get(), WAIT)
        assert item is not None
        frame = item[1]
        if frame.type != "session/event":
            continue
        assert frame.event.seq in committed(db, sid), f"seq {frame.event.seq} shown before its commit"
        checked += 1
        chunk = frame.event.data.get("chunk") or {}
        joined += chunk.get("text", "") if chunk.get("type") == "text-delta" else ""
        if frame.event.type == "turn/end":
            break
    assert joined == "word " * 400  # 400 deltas, merged into fewer events while commits run
    assert checked > 10


def seqs(taken: list[tuple[Any, Any]]) -> list[int | None]:
    """The event seq of each frame taken off the bus (None for anything that is not one)."""
    return [f.event.seq if isinstance(f, SessionEventFrame) else None for _, f in taken]


async def test_bus_holds_a_frame_until_its_ticket_and_drops_failed_ones() -> None:
    bus = Bus()
    sub = bus.subscribe("mux")

    def frame(seq: int) -> SessionEventFrame:
        return SessionEventFrame(session_id="s", event=SessionEvent(type="x", seq=seq, time=0, data={}))

    bus.publish("mux", frame(0), after=1)
    bus.publish("host", HostSessionStatus(session_id="s", running=True))  # no ticket, but after it
    bus.publish("mux", frame(1), after=2)
    bus.publish("mux", frame(2), after=3)
    assert sub.take() == [] and bus.held() == 4
    bus.settle(1)
    assert seqs(sub.take()) == [0]
    bus.settle(3, dropped={2})
    assert seqs(sub.take()) == [2]  # seq 1's write failed: never shown
    assert bus.held() == 0


async def test_a_full_disk_mid_turn_is_reported_and_the_host_recovers(
    engine_factory: Any, scripted_llm: Any
) -> None:
    engine = await engine_factory(tools={})
    host = engine.host.subscribe_host()
    mux = engine.host.subscribe_mux()
    sid = await engine.sessions.create_session("/tmp")
    scripted_llm.enqueue(Reply(text="first answer"))
    await engine.agents.prompt(sid, "queue", text("hello"), "r1")
    await frames_until(mux, is_event("turn/end", turn=0))

    await limit_pages(engine.parts.store, 2)
    scripted_llm.enqueue(Reply(text="y" * 60_000, chunk_size=200, delay=0.001))
    await engine.agents.prompt(sid, "queue", text("fill the disk"), "r2")
    error = (await frames_until(host, lambda f: f.type == "host/agent-error", WAIT))[-1]
    assert error.session_id == sid and error.message.startswith("the disk is full")
    assert str(engine.parts.store.path) in error.message
    await frames_until(host, lambda f: f.type == "host/session-status" and not f.running, WAIT)

    # the host keeps answering, and says why it will not start a turn
    assert [s.session_id for s in await engine.sessions.list_sessions()] == [sid]
    events, _, _ = await engine.sessions.history(sid)
    assert [e.seq for e in events] == list(range(len(events)))
    with pytest.raises(StoreFull) as refused:
        await engine.agents.prompt(sid, "queue", text("again"), "r3")
    assert refused.value.code == "storage-error" and refused.value.details() == {"reason": "disk-full"}

    shown = [e.seq for e in events_of(frames_until_now(mux))]
    on_disk = committed(engine.parts.store.path, sid)
    assert set(shown) <= on_disk  # nothing shown that the failure took back

    await limit_pages(engine.parts.store, None)  # space is back
    closing = await frames_until(mux, is_event("turn/end", turn=1), WAIT)
    end = events_of(closing)[-1]
    assert end.data["reason"]["kind"] == "error"
    assert end.data["reason"]["error"]["message"].startswith("the disk is full")
    assert engine.health.error is None

    scripted_llm.enqueue(Reply(text="after the storm"))
    await engine.agents.prompt(sid, "queue", text("still there?"), "r4")
    done = await frames_until(mux, is_event("turn/end", turn=2), WAIT)
    assert events_of(done)[-1].data["reason"] == {"kind": "completed"}
    events, _, _ = await engine.sessions.history(sid, max_messages=1000)
    assert [e.seq for e in events] == list(range(len(events)))
    assert [e.data["reason"]["kind"] for e in events if e.type == "turn/end"] == [
        "completed",
        "error",
        "completed",
    ]


def frames_until_now(sub: Any) -> list[Any]:
    out = []
    while (item := sub.get_nowait()) is not None:
        out.append(item[1])
    return out


async def test_the_writer_survives_a_lock_held_elsewhere_and_every_wait_is_bounded(tmp_path: Path) -> None:
    store = SqliteStore.in_dir(tmp_path, call_timeout=1.0)
    await store.open()
    failures: list[Any] = []
    store.on_settled(lambda s: failures.append(s) if s.error is not None else None)
    try:
        store.register(SessionHeader(id="s1", created_at=0))
        store.append("s1", [SessionEvent(type="x", seq=0, time=0, data={})])
        await store.flush()
        other = sqlite3.connect(tmp_path / DB_FILE, timeout=0, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")  # another program holds the file
        try:
            store.append("s1", [SessionEvent(type="x", seq=1, time=0, data={})])
            with pytest.raises(StoreError) as waited:
                await store.events("s1")  # bounded: a timeout or "locked", never a hang
            assert isinstance(waited.value, StoreTimeout) or waited.value.kind == "busy"
            for _ in range(int(WAIT / 0.1)):  # held past SQLite's own 5 s wait: the write fails
                if failures:
                    break
                await asyncio.sleep(0.1)
        finally:
            other.execute("ROLLBACK")
            other.close()
        await asyncio.wait_for(store.flush(), WAIT)
        assert failures and failures[0].failed_sessions == {"s1"}
        assert failures[0].error.kind == "busy" and "locked by another program" in str(failures[0].error)
        assert store.next_seq("s1") == 1  # rewound to what is on disk
        store.append("s1", [SessionEvent(type="y", seq=1, time=0, data={})])
        assert [e.type for e in await store.events("s1")] == ["x", "y"]  # and it carries on
    finally:
        await store.close()


async def test_the_cut_off_rule_is_about_not_reading_never_burst_size() -> None:
    bus = Bus(limit=100_000, stall_after=60.0)
    reader = bus.subscribe("host")
    stalled = bus.subscribe("host")
    for n in range(20_000):  # ten times the old per-subscriber queue
        bus.publish("host", HostSessionStatus(session_id=f"s{n}", running=True))
        if n % 1000 == 0:
            reader.take()
    assert not reader.closed and not stalled.closed  # a burst alone never cuts anyone
    assert len(reader.take()) == 20_000 - 19_001  # it took at n = 0, 1000, …, 19000
    bus.stall_after = 0.2
    await asyncio.sleep(0.3)  # now `stalled` has left frames unread for longer than the bound
    fresh = bus.subscribe("host")
    reader.take()
    bus.publish("host", HostSessionStatus(session_id="last", running=False))
    assert stalled.closed and stalled.overflowed
    assert not reader.closed and not fresh.closed  # read recently / had nothing to read
    assert [f.type for _, f in stalled.take()] == ["stream/error"]
    assert len(bus._logs["host"].entries) == 1  # memory: only what the live readers still need

    tight = Bus(limit=100)
    slow = tight.subscribe("host")
    for n in range(101):
        tight.publish("host", HostSessionStatus(session_id=f"s{n}", running=True))
    assert slow.overflowed  # the hard memory bound still holds


async def test_a_checkpoint_that_cannot_be_saved_is_an_error_not_a_silent_loss(tmp_path: Path) -> None:
    """The file tools change a file only after its checkpoint is committed: a full disk must
    reach them as the typed error (a queued write's failure would have gone unnoticed)."""
    store = SqliteStore.in_dir(tmp_path)
    await store.open()
    try:
        store.register(SessionHeader(id="s1", created_at=0))
        store.append("s1", [SessionEvent(type="x", seq=0, time=0, data={})])
        await store.flush()
        await limit_pages(store, 0)
        big = b"x" * 200_000
        with pytest.raises(StoreFull):
            await store.put_checkpoint("s1", 0, "big.bin", hashlib.sha256(big).hexdigest(), big)
        assert await store.checkpoint("s1", 0, "big.bin") is None
        await limit_pages(store, None)
        await store.put_checkpoint("s1", 0, "big.bin", hashlib.sha256(big).hexdigest(), big)
        found = await store.checkpoint("s1", 0, "big.bin")
        assert found is not None and found.data == big  # and it works again once there is room
    finally:
        await store.close()


async def test_wal_checkpoints_never_run_on_the_writer(tmp_path: Path) -> None:
    """The writer's connection has automatic checkpoints off; the WAL is still checkpointed, by
    the checkpointer's own thread, when a turn ends and when the log grows past its threshold."""
    store = SqliteStore.in_dir(tmp_path)
    await store.open()
    wal = store._writer.wal
    wal.threshold = 256 * 1024
    try:
        autocheckpoint = await store.call(lambda conn: conn.execute("PRAGMA wal_autocheckpoint").fetchone())
        assert autocheckpoint == (0,)
        store.register(SessionHeader(id="s1", created_at=0))
        big = {"text": "y" * 2000}
        for seq in range(400):  # ~1 MB of log, past the threshold: checkpointed without asking
            store.append("s1", [SessionEvent(type="x", seq=seq, time=0, data=big)])
        await store.flush()
        for _ in range(int(WAIT / 0.05)):
            if wal.done:
                break
            await asyncio.sleep(0.05)
        assert wal.done >= 1
        grown = wal.done
        store.append("s1", [SessionEvent(type="x", seq=400, time=0, data={})])
        await store.flush(checkpoint=True)  # a turn ended: asked for, never waited for
        for _ in range(int(WAIT / 0.05)):
            if wal.done > grown:
                break
            await asyncio.sleep(0.05)
        assert wal.done > grown
        other = sqlite3.connect(tmp_path / DB_FILE)
        try:  # what was checkpointed is in the database file proper, and complete
            assert other.execute("SELECT COUNT(*) FROM events").fetchone() == (401,)
        finally:
            other.close()
    finally:
        await store.close()
    assert wal._thread is not None and not wal._thread.is_alive()


async def test_opening_the_store_is_bounded_with_one_clear_message(tmp_path: Path) -> None:
    """A file another program holds (SQLite would wait, as it would on a stuck disk): the open
    gives up after its bound with one sentence naming the file, and the thread it left behind
    closes the file and ends once the file answers again."""
    other = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    other.execute("CREATE TABLE held (x)")
    other.execute("BEGIN EXCLUSIVE")  # readers wait for this lock (SQLite's 5 s busy wait)
    other.execute("INSERT INTO held VALUES (1)")
    store = SqliteStore.in_dir(tmp_path, open_timeout=0.5)
    try:
        with pytest.raises(StoreTimeout) as caught:
            await asyncio.wait_for(store.open(), WAIT)
    finally:
        other.execute("COMMIT")
        other.close()
    message = str(caught.value)
    assert message.startswith(f"the database {tmp_path / DB_FILE} did not open within 0.5s")
    assert "\n" not in message and caught.value.kind == "timeout"
    thread = store._writer._thread
    assert thread is not None
    await asyncio.to_thread(thread.join, WAIT)
    assert not thread.is_alive()
    await store.close()  # a no-op: it never opened
    again = SqliteStore.in_dir(tmp_path)
    await again.open()  # nothing was left locked or half-open
    await again.close()
