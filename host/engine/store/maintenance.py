"""The database file's maintenance, for `harnessdesk doctor`: its status line, `--repair` (salvage
a damaged file into a new one) and `--restore-backup` (docs/decisions.md "Reliability").

They work on a data dir whose host is not running (the caller holds the data dir's lock), never
delete a file (the one they replace is renamed aside with a time stamp and its name reported)
and answer a few plain lines for the user.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

from host.engine.store import DB_FILE
from host.engine.store.backup import backups, full_check
from host.engine.store.faults import header_problem, one_line, quick_check
from host.engine.store.salvage import salvage

SIDE_FILES = ("-wal", "-shm")
STATUS_BUDGET = 2.0


class MaintenanceError(Exception):
    """One line for the user, exit code 2."""


def database_status(data_dir: Path) -> str:
    """`database: <file> (<size>), <integrity>; backups: <n>, newest <name>` — bounded in time."""
    db = data_dir / DB_FILE
    found = backups(data_dir / "backups")
    newest = f", newest {found[-1].name}" if found else ""
    tail = f"; backups: {len(found)}{newest}"
    if not db.exists():
        return f"database: {db} (not created yet){tail}"
    size = db.stat().st_size / 1e6
    problem = header_problem(db)
    try:
        if problem is not None:
            problems: list[str] | None = [problem]
        else:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2.0)
            try:
                problems = quick_check(conn, STATUS_BUDGET)
            finally:
                conn.close()
    except sqlite3.Error as exc:
        problems = [str(exc)]
    if problems is None:
        verdict = f"integrity not fully checked within {STATUS_BUDGET:g}s"
    elif problems:
        verdict = f"DAMAGED ({one_line(problems[0])}) — run `harnessdesk doctor --repair`"
    else:
        verdict = "integrity ok"
    return f"database: {db} ({size:.1f} MB), {verdict}{tail}"


def _aside(db: Path, label: str) -> Path:
    """Rename the database and its WAL files to `harnessdesk.<label>-<stamp>.sqlite3[-wal…]`."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept = db.with_name(f"harnessdesk.{label}-{stamp}.sqlite3")
    os.replace(db, kept)
    for side in SIDE_FILES:
        extra = db.with_name(db.name + side)
        if extra.exists():
            os.replace(extra, kept.with_name(kept.name + side))
    return kept


def _back(kept: Path, db: Path) -> None:
    os.replace(kept, db)
    for side in SIDE_FILES:
        extra = kept.with_name(kept.name + side)
        if extra.exists():
            os.replace(extra, db.with_name(db.name + side))


def repair_database(data_dir: Path, *, force: bool = False) -> list[str]:
    """Salvage a damaged database into a new file; returns the report lines."""
    db = data_dir / DB_FILE
    if not db.exists():
        return [f"no database at {db}: nothing to repair"]
    if not force:
        try:
            problem = header_problem(db)
            problems = [problem] if problem is not None else full_check(db)
        except sqlite3.Error as exc:
            problems = [str(exc)]
        if not problems:
            return [f"the database {db} checks out: nothing to repair"]
    kept = _aside(db, "damaged")
    try:
        with tempfile.TemporaryDirectory(dir=data_dir) as work:
            copy = Path(work) / "copy.sqlite3"  # salvage reads a copy: the kept file stays as found
            shutil.copyfile(kept, copy)
            wal = kept.with_name(kept.name + "-wal")
            if wal.exists():
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
            fresh = Path(work) / "salvaged.sqlite3"
            report = salvage(copy, fresh)
            os.replace(fresh, db)
    except BaseException:
        with contextlib.suppress(OSError):
            if not db.exists():
                _back(kept, db)
        raise
    lines = [
        f"salvaged {report.sessions} sessions, {report.events} events and {report.attachments}"
        f" images into {db}"
    ]
    if report.lost:
        worst = ", ".join(f"{sid} ({n})" for sid, n in sorted(report.lost_events.items())[:5])
        lines.append(f"could not read {report.lost} events in {len(report.lost_events)} sessions: {worst}")
    else:
        lines.append("every readable session came through whole")
    if report.headerless:
        lines.append(f"{len(report.headerless)} sessions had lost their header; rebuilt from their events")
    lines.append(f"the damaged file is kept as {kept}")
    found = backups(data_dir / "backups")
    if found and report.lost:
        lines.append(f"a backup may hold more: `harnessdesk doctor --restore-backup {found[-1]}`")
    return lines


def restore_backup(data_dir: Path, chosen: str | None) -> list[str]:
    """Put a backup (the newest, or `chosen`) in place of the database; returns report lines."""
    db = data_dir / DB_FILE
    found = backups(data_dir / "backups")
    source = Path(chosen).expanduser() if chosen else (found[-1] if found else None)
    if source is None:
        raise MaintenanceError(f"no backups in {data_dir / 'backups'}")
    if not source.is_file():
        raise MaintenanceError(f"no backup file {source}")
    try:
        problems = full_check(source)
    except sqlite3.Error as exc:
        problems = [str(exc)]
    if problems:
        raise MaintenanceError(f"the backup {source} is damaged too ({problems[0]})")
    kept = _aside(db, "replaced") if db.exists() else None
    partial = db.with_name(db.name + ".restoring")
    shutil.copyfile(source, partial)
    os.replace(partial, db)
    lines = [f"restored {source} into {db}"]
    if kept is not None:
        lines.append(f"the file it replaced is kept as {kept}")
    return lines
