"""A damaged database is never silent: one clear line at start, `doctor --repair` salvages into a
new file and keeps the old one, backups are made, kept (3) and restorable."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from host.engine.store import SqliteStore, StoreCorrupt
from host.engine.store.backup import BackupSchedule, backups, make_backup
from host.engine.store.grants import Grant
from host.engine.store.maintenance import database_status as status_line
from host.engine.store.salvage import salvage
from tests.api.support import run_cli, run_main
from tests.faults.conftest import PAGE, add_noise, check, db_of, fill, leaf_page


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def semantic(event: Any) -> tuple[str, int, str]:
    """An event without its seq and seq references (salvage may renumber)."""
    data = {k: v for k, v in event.data.items()}
    return (event.type, event.time, repr(sorted(data.items())))


async def read_all(data: Path) -> dict[str, list[Any]]:
    store = SqliteStore.in_dir(data)
    await store.open()
    try:
        return {h.id: await store.events(h.id) for h in await store.sessions()}
    finally:
        await store.close()


def is_subsequence(part: list[Any], whole: list[Any]) -> bool:
    it = iter(whole)
    return all(any(x == y for y in it) for x in part)


async def test_noise_inside_the_file_stops_the_start_and_doctor_repair_salvages(tmp_path: Path) -> None:
    data = tmp_path / "data"
    written = await fill(data)
    db = db_of(data)
    pages = db.stat().st_size // PAGE
    add_noise(db, (pages // 2) * PAGE)
    assert check(db), "precondition: the noise landed on a page the check reads"

    ran = run_cli("serve", "--data-dir", str(data))
    assert ran.returncode == 2
    line = one_line(ran.stderr)
    assert str(db) in line and "damaged" in line and "harnessdesk doctor --repair" in line

    damaged = db.read_bytes()
    repaired = run_main("doctor", "--repair", "--data-dir", str(data))
    assert repaired.returncode == 0, repaired.stderr
    kept = sorted(data.glob("harnessdesk.damaged-*.sqlite3"))
    assert len(kept) == 1 and kept[0].read_bytes() == damaged  # the old file, untouched
    assert str(kept[0]) in repaired.stdout and "salvaged" in repaired.stdout
    assert check(db) == []

    salvaged = await read_all(data)
    total = sum(len(v) for v in written.values())
    got = sum(len(v) for v in salvaged.values())
    assert got >= total // 2, repaired.stdout
    for sid, events in salvaged.items():
        assert [e.seq for e in events] == list(range(len(events)))  # contiguous again
        assert is_subsequence([semantic(e) for e in events], [semantic(e) for e in written[sid]])
        for e in events:  # references point at events that exist
            assert all(0 <= s < len(events) for s in e.source_event_seqs or [])
    if got < total:
        assert "could not read" in repaired.stdout
    sid = next(iter(salvaged))  # and the app opens it again
    exported = run_main("export", sid, "-o", str(tmp_path / "out.zip"), "--data-dir", str(data))
    assert exported.returncode == 0 and (tmp_path / "out.zip").stat().st_size > 0, exported.stderr


async def test_a_file_that_is_not_a_database_is_one_line_and_a_backup_restores_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    written = await fill(data, sessions=2, turns=2)
    db = db_of(data)
    backup = make_backup(db, data / "backups")
    add_noise(db, 0, 100)  # the header: SQLite no longer recognises the file

    ran = run_main("prompt", "hello", "--data-dir", str(data))
    assert ran.returncode == 2
    line = one_line(ran.stderr)
    assert str(db) in line and "doctor --repair" in line

    status = status_line(data)
    assert status.startswith(f"database: {db}") and "DAMAGED" in status and "backups: 1" in status

    ran = run_main("doctor", "--restore-backup", "--data-dir", str(data))
    assert ran.returncode == 0, ran.stderr
    assert str(backup) in ran.stdout and len(list(data.glob("harnessdesk.replaced-*.sqlite3"))) == 1
    restored = await read_all(data)
    assert {sid: len(v) for sid, v in restored.items()} == {sid: len(v) for sid, v in written.items()}

    ran = run_main("doctor", "--repair", "--data-dir", str(data))
    assert ran.returncode == 0 and "nothing to repair" in ran.stdout
    assert "integrity ok" in status_line(data)


async def test_a_damaged_page_read_at_run_time_is_a_typed_error(tmp_path: Path) -> None:
    data = tmp_path / "data"
    written = await fill(data, sessions=1, turns=8)
    db = db_of(data)
    add_noise(db, leaf_page(db, "events"))  # a page the reads below must cross
    store = SqliteStore.in_dir(data, check_budget=None)  # skip the start-up check on purpose
    await store.open()
    try:
        with pytest.raises(StoreCorrupt) as caught:
            for sid in written:
                await store.events(sid)
                await store.page(sid, None, 1000)
            await store.search("question")
        assert str(db) in str(caught.value) and "doctor --repair" in str(caught.value)
        assert caught.value.code == "storage-error" and caught.value.details() == {"reason": "corrupt"}
        await store.probe()  # the writer is alive and still answers
    finally:
        await store.close()


async def test_daily_backups_keep_the_last_three_and_skip_a_damaged_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    await fill(data, sessions=1, turns=1)
    db = db_of(data)
    damage: list[str] = []
    schedule = BackupSchedule(db, data / "backups", fully_checked=True, on_damage=damage.append, every=0)
    for n in range(5):
        await schedule.tick()
        assert len(backups(data / "backups")) == min(n + 1, 3)
    kept = backups(data / "backups")
    assert kept == schedule.made[-3:] and all(check(p) == [] for p in kept)
    assert not any(p.name.endswith(".partial") for p in (data / "backups").iterdir())

    not_due = BackupSchedule(db, data / "backups", fully_checked=True, on_damage=damage.append)
    await not_due.tick()
    assert not_due.made == []  # the newest is minutes old, not a day

    add_noise(db, (db.stat().st_size // PAGE // 2) * PAGE)
    unchecked = BackupSchedule(db, data / "backups", fully_checked=False, on_damage=damage.append, every=0)
    await unchecked.tick()
    assert unchecked.made == [] and len(damage) == 1  # the deferred check caught it: no backup
    assert "damaged" in damage[0] and "doctor --repair" in damage[0]


async def test_salvage_keeps_permissions_and_the_checkpoints_that_still_match(tmp_path: Path) -> None:
    data = tmp_path / "data"
    written = await fill(data, sessions=2, turns=1)
    first, second = sorted(written)
    store = SqliteStore.in_dir(data)
    await store.open()
    try:
        store.set_policy(first, "read-only", 1)
        store.add_grant(first, Grant("bash", "words:npm test", 2))
        store.set_policy(second, "full-access", 3)
        kept = b"what notes.txt held before turn 0\n"
        await store.put_checkpoint(first, 0, "notes.txt", hashlib.sha256(kept).hexdigest(), kept)
        await store.put_checkpoint(first, 0, "new.txt", None, None)  # it did not exist
        await store.put_checkpoint(second, 0, "bad.txt", "0" * 64, b"does not match its hash")
    finally:
        await store.close()
    report = salvage(db_of(data), tmp_path / "salvaged.sqlite3")
    assert report.sessions == 2 and report.lost == 0
    moved = SqliteStore(tmp_path / "salvaged.sqlite3")
    await moved.open()
    try:  # never rebuilt from events: without the copy, each would fall back to the default now
        assert await moved.policy(first) == "read-only" and await moved.policy(second) == "full-access"
        assert await moved.grants(first) == [Grant("bash", "words:npm test", 2)]
        assert await moved.grants(second) == []
        found = await moved.checkpoint(first, 0, "notes.txt")
        assert found is not None and found.data == kept
        absent = await moved.checkpoint(first, 0, "new.txt")
        assert absent is not None and absent.sha256 is None
        assert await moved.checkpoint(second, 0, "bad.txt") is None  # never restore a damaged blob
    finally:
        await moved.close()


async def test_a_session_that_cannot_resume_its_input_never_stops_the_start(
    tmp_path: Path, engine_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    written = await fill(data, sessions=2, turns=1)
    good, broken = sorted(written)
    conn = sqlite3.connect(db_of(data))
    with conn:
        seq = len(written[broken])
        conn.execute("INSERT INTO events VALUES (?, ?, 'agent/inbox/spliced', 0, 'not json')", (broken, seq))
        conn.execute("INSERT INTO inbox_pending VALUES (?, 1)", (broken,))
        conn.execute("INSERT INTO inbox_pending VALUES ('s-gone-in-a-salvage', 1)")
    conn.close()
    engine = await engine_factory(data_dir=data, tools={})  # starts anyway
    assert {s.session_id for s in await engine.sessions.list_sessions()} == {good, broken}
    events, _, _ = await engine.sessions.history(good, max_messages=1000)
    assert len(events) == len(written[good])
    complaints = [r.getMessage() for r in caplog.records if "could not resume" in r.getMessage()]
    assert len(complaints) == 2 and all("\n" not in c for c in complaints)
    assert any(broken in c and "doctor --repair" in c for c in complaints)
