"""Turn SQLite and OS failures into typed store errors with one sentence a user can act on.

The sentence names the database file and what to do: free disk space, or run
`harnessdesk doctor --repair` for a damaged file (docs/decisions.md "Reliability").
"""

from __future__ import annotations

import errno
import sqlite3
import time
from pathlib import Path

from pydantic import ValidationError

from host.engine.store.base import StoreCorrupt, StoreError, StoreFull

SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_INTERRUPT = 9
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26

REPAIR_HINT = "run `harnessdesk doctor --repair` to salvage it into a new file (the damaged file is kept)"


class StoreBusy(StoreError):
    kind = "busy"


class StoreReadOnly(StoreError):
    kind = "read-only"


SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file (its 100-byte header follows)."""


def one_line(text: str) -> str:
    """SQLite's own words (a quick_check report, a multi-line error) folded onto one line."""
    return " ".join(text.split())


def damaged(path: Path | str, detail: str) -> StoreCorrupt:
    return StoreCorrupt(f"the database {path} is damaged ({one_line(detail)}); {REPAIR_HINT}")


def header_problem(path: Path) -> str | None:
    """Why an existing file cannot be this app's database, or None. The app never leaves an empty
    or headerless file at the database's path (`create_fresh`), so such a file was truncated or
    replaced: SQLite would silently open it as an empty store (docs/decisions.md "Crash windows")."""
    with path.open("rb") as fh:
        head = fh.read(100)
    if not head:
        return "the file is empty (0 bytes)"
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        return "the file has no SQLite header"
    return None


def classify(
    exc: BaseException, path: Path | str, *, opening: bool = False, reading: bool = False
) -> StoreError:
    """The typed store error for `exc` (already typed errors pass through)."""
    if isinstance(exc, StoreError):
        return exc
    detail = one_line(str(exc)) or type(exc).__name__
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        if code == SQLITE_FULL or "disk is full" in detail:
            return StoreFull(f"the disk is full: cannot save to {path} ({detail}); free some space")
        if code in (SQLITE_CORRUPT, SQLITE_NOTADB) or "malformed" in detail or "not a database" in detail:
            return damaged(path, detail)
        if code in (SQLITE_BUSY, SQLITE_LOCKED):
            return StoreBusy(f"the database {path} is locked by another program ({detail})")
        if code == SQLITE_READONLY:
            return StoreReadOnly(f"the database {path} cannot be written ({detail})")
        if code == SQLITE_CANTOPEN or opening:
            return StoreError(f"cannot open the database {path} ({detail})")
        if code == SQLITE_IOERR:
            return StoreError(f"the disk failed reading or writing {path} ({detail})")
        return StoreError(f"the database {path} failed: {detail}")
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            return StoreFull(f"the disk is full: cannot save to {path} ({exc.strerror}); free some space")
        return StoreError(f"cannot use the database {path} ({exc.strerror or detail})")
    if reading and isinstance(exc, ValidationError | ValueError | UnicodeError):
        return damaged(path, f"a stored event cannot be read: {(str(exc).splitlines() or [detail])[0]}")
    return StoreError(f"the database {path} failed: {type(exc).__name__}: {detail}")


def quick_check(conn: sqlite3.Connection, budget: float | None, max_errors: int = 10) -> list[str] | None:
    """`PRAGMA quick_check`, stopped after `budget` seconds: the problems found ([] = sound), or
    None when the budget ran out first (the file is then only partly checked)."""
    deadline = None if budget is None else time.monotonic() + budget
    if deadline is not None:
        conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 2000)
    try:
        rows = conn.execute(f"PRAGMA quick_check({int(max_errors)})").fetchall()
    except sqlite3.OperationalError as exc:
        if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == SQLITE_INTERRUPT or "interrupt" in str(exc):
            return None
        raise
    finally:
        conn.set_progress_handler(None, 0)
    problems = [str(r[0]) for r in rows]
    return [] if problems == ["ok"] else problems
