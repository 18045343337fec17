"""Automations and their runs, kept host-side in the sessions' database
(docs/decisions/automations.md).

A row of `automations` is one automation: its wire fields as JSON (`spec`), whether it is on, and
`since`: the time its schedule counts from (a slot before it — before the automation existed or
its trigger changed — never runs). A row of `automation_runs` is one run. The row is the claim:
it is written and committed before the run's session exists, and `(automation_id, slot)` is
unique, so a scheduled slot is claimed once even across a crash (a restart finds the claim and
repairs the run instead of starting it again).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from host.engine.store.named import named_rows

DDL = """
CREATE TABLE IF NOT EXISTS automations (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    since INTEGER NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS automation_runs (
    run_id TEXT PRIMARY KEY,
    automation_id TEXT NOT NULL,
    slot TEXT NOT NULL,
    session_id TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    outcome TEXT NOT NULL,
    changed INTEGER NOT NULL DEFAULT 0,
    summary TEXT NOT NULL DEFAULT '',
    read INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    UNIQUE (automation_id, slot)
) WITHOUT ROWID;
"""


@dataclass
class AutomationRow:
    id: str
    spec: dict[str, Any]
    """The automation's wire fields (camelCase), as `automation.create` took them."""
    enabled: bool
    since: int
    """ms since the epoch: the schedule's slots count from here."""
    created_at: int


@dataclass
class RunRow:
    run_id: str
    automation_id: str
    slot: str
    """A schedule's slot time (ms, as text), or `now:<run id>` / `files:<run id>`."""
    session_id: str | None
    started_at: int
    ended_at: int | None
    outcome: str
    changed: int
    summary: str
    read: bool
    archived: bool


def read_automations(conn: sqlite3.Connection) -> list[AutomationRow]:
    rows = named_rows(conn.execute("SELECT id, spec, enabled, since, created_at FROM automations"))
    out = []
    for r in rows:
        try:
            spec = json.loads(r.spec)
        except ValueError:
            continue  # a row this version cannot read is left alone, not guessed at
        out.append(AutomationRow(str(r.id), spec, bool(r.enabled), int(r.since), int(r.created_at)))
    return sorted(out, key=lambda a: (a.created_at, a.id))


def write_automation(conn: sqlite3.Connection, row: AutomationRow) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO automations (id, spec, enabled, since, created_at) VALUES (?, ?, ?, ?, ?)",
        (row.id, json.dumps(row.spec), int(row.enabled), row.since, row.created_at),
    )


def delete_automation(conn: sqlite3.Connection, automation_id: str) -> None:
    conn.execute("DELETE FROM automations WHERE id = ?", (automation_id,))


_RUN_COLUMNS = (
    "run_id, automation_id, slot, session_id, started_at, ended_at, outcome, changed, summary, read, archived"
)


def read_runs(conn: sqlite3.Connection) -> list[RunRow]:
    rows = named_rows(conn.execute(f"SELECT {_RUN_COLUMNS} FROM automation_runs ORDER BY started_at, run_id"))
    return [
        RunRow(
            str(r.run_id),
            str(r.automation_id),
            str(r.slot),
            r.session_id,
            int(r.started_at),
            None if r.ended_at is None else int(r.ended_at),
            str(r.outcome),
            int(r.changed),
            str(r.summary),
            bool(r.read),
            bool(r.archived),
        )
        for r in rows
    ]


def claim(conn: sqlite3.Connection, run: RunRow, since: int | None = None) -> bool:
    """Insert a new run (and move its automation's `since` past a scheduled slot, so the slot is
    spent even when the run's row is discarded later); False when the slot was claimed already
    (nothing written)."""
    cursor = conn.execute(
        f"INSERT OR IGNORE INTO automation_runs ({_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run.run_id,
            run.automation_id,
            run.slot,
            run.session_id,
            run.started_at,
            run.ended_at,
            run.outcome,
            run.changed,
            run.summary,
            int(run.read),
            int(run.archived),
        ),
    )
    if cursor.rowcount != 1:
        return False
    if since is not None:
        conn.execute("UPDATE automations SET since = MAX(since, ?) WHERE id = ?", (since, run.automation_id))
    return True


def write_run(conn: sqlite3.Connection, run: RunRow) -> None:
    conn.execute(
        "UPDATE automation_runs SET session_id = ?, ended_at = ?, outcome = ?, changed = ?, summary = ?,"
        " read = ?, archived = ? WHERE run_id = ?",
        (
            run.session_id,
            run.ended_at,
            run.outcome,
            run.changed,
            run.summary,
            int(run.read),
            int(run.archived),
            run.run_id,
        ),
    )


def delete_run(conn: sqlite3.Connection, run_id: str) -> None:
    conn.execute("DELETE FROM automation_runs WHERE run_id = ?", (run_id,))


def delete_runs_of(conn: sqlite3.Connection, automation_id: str) -> None:
    conn.execute("DELETE FROM automation_runs WHERE automation_id = ?", (automation_id,))
