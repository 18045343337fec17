"""The store never passes a damaged file off as an empty one, and says so in one line
(docs/decisions.md "Crash windows"): a 0-byte or headerless database file is damaged (the app
only ever puts a whole file with its header at the database's path), a brand-new data dir still
starts, and SQLite's multi-line reports are folded onto one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from host.engine.store import SqliteStore, StoreCorrupt
from host.engine.store.maintenance import database_status
from tests.api.support import run_main
from tests.faults.conftest import PAGE, add_noise, check, db_of, fill
from tests.faults.test_corruption import one_line

SQLITE_MAGIC = b"SQLite format 3\x00"  # every SQLite file starts so


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "the file is empty (0 bytes)"),
        (b"\0" * 50, "no SQLite header"),
        (SQLITE_MAGIC, "no SQLite header"),
    ],
)
async def test_an_empty_or_headerless_database_is_damaged_never_an_empty_store(
    tmp_path: Path, content: bytes, words: str
) -> None:
    data = tmp_path / "data"
    await fill(data, sessions=1, turns=1)
    db = db_of(data)
    db.write_bytes(content)  # truncated (or replaced) while the app was away

    ran = run_main("prompt", "hello", "--data-dir", str(data))
    assert ran.returncode == 2
    line = one_line(ran.stderr)
    assert str(db) in line and words in line and "harnessdesk doctor --repair" in line
    assert db.read_bytes() == content  # nothing written over it

    store = SqliteStore.in_dir(data)
    with pytest.raises(StoreCorrupt) as caught:
        await store.open()
    assert caught.value.details() == {"reason": "corrupt"}
    assert "DAMAGED" in database_status(data) and words in database_status(data)

    ran = run_main("doctor", "--repair", "--data-dir", str(data))
    assert ran.returncode == 0, ran.stderr
    kept = sorted(data.glob("harnessdesk.damaged-*.sqlite3"))
    assert len(kept) == 1 and kept[0].read_bytes() == content  # kept as found
    assert "integrity ok" in database_status(data)  # and the app opens again
    store = SqliteStore.in_dir(data)
    await store.open()
    await store.close()


async def test_a_new_data_dir_starts_with_a_whole_file_and_no_leftovers(tmp_path: Path) -> None:
    data = tmp_path / "fresh"
    store = SqliteStore.in_dir(data)
    await store.open()
    try:
        db = db_of(data)
        assert db.read_bytes()[:16] == SQLITE_MAGIC  # the header is there before any session
        assert sorted(p.name for p in data.iterdir() if not p.name.startswith(db.name)) == []
    finally:
        await store.close()
    store = SqliteStore.in_dir(data)  # and it opens again as this app's own file
    await store.open()
    await store.close()


async def test_sqlite_multi_line_reports_fit_on_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    await fill(data)
    db = db_of(data)
    add_noise(db, PAGE + 8, 4)  # a cell pointer of the second page points out of range
    found = check(db)
    assert found and "\n" in found[0], f"precondition: SQLite reports on several lines: {found}"

    store = SqliteStore.in_dir(data)
    with pytest.raises(StoreCorrupt) as caught:
        await store.open()
    message = str(caught.value)
    assert "\n" not in message and "On tree page 2 cell 0" in message and str(db) in message

    ran = run_main("prompt", "hello", "--data-dir", str(data))
    assert ran.returncode == 2
    assert "On tree page 2" in one_line(ran.stderr)
    status = database_status(data)
    assert "\n" not in status and "DAMAGED" in status and "On tree page 2" in status
