"""Which of a session's turns each commit made from it covers (docs/decisions/commit-and-push.md).

A row is written when `git.commit` succeeds: the commit's sha, the turns it covers — those that
changed a file it commits and no earlier commit of the session covers (or, when the session's
change record cannot be read, the turns that ended since its previous commit) — with the event
each starts at, for the log row's links, and the last event then. A commit made elsewhere has no
row, so its log row links nothing.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

DDL = """
CREATE TABLE IF NOT EXISTS session_commits (
    session_id TEXT NOT NULL,
    sha TEXT NOT NULL,
    turns_json TEXT NOT NULL,
    last_seq INTEGER NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (session_id, sha)
) WITHOUT ROWID;
"""


@dataclass(frozen=True)
class CommitRow:
    session_id: str
    sha: str
    turns: list[tuple[int, int]]
    """(turn, start seq) of each covered turn, in order."""
    last_seq: int
    at: int


def write(conn: sqlite3.Connection, row: CommitRow) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO session_commits (session_id, sha, turns_json, last_seq, at)"
        " VALUES (?, ?, ?, ?, ?)",
        (row.session_id, row.sha, json.dumps(row.turns), row.last_seq, row.at),
    )


def read(conn: sqlite3.Connection, session_id: str) -> list[CommitRow]:
    rows = conn.execute(
        "SELECT sha, turns_json, last_seq, at FROM session_commits WHERE session_id = ?"
        " ORDER BY at, last_seq",
        (session_id,),
    ).fetchall()
    return [
        CommitRow(session_id, sha, [(int(t), int(s)) for t, s in json.loads(turns)], int(last), int(at))
        for sha, turns, last, at in rows
    ]


def ended_turns(conn: sqlite3.Connection, session_id: str, after_seq: int) -> list[tuple[int, int]]:
    """(turn, start seq) of the session's turns that ended after event `after_seq`."""
    rows = conn.execute(
        "SELECT turn, start_seq FROM turns WHERE session_id = ? AND end_seq IS NOT NULL AND end_seq > ?"
        " ORDER BY start_seq",
        (session_id, after_seq),
    ).fetchall()
    return [(int(t), int(s)) for t, s in rows]


def turn_starts(conn: sqlite3.Connection, session_id: str) -> dict[int, int]:
    """Every turn of the session → the event it starts at."""
    rows = conn.execute("SELECT turn, start_seq FROM turns WHERE session_id = ?", (session_id,)).fetchall()
    return {int(t): int(s) for t, s in rows}


def last_seq(conn: sqlite3.Connection, session_id: str) -> int:
    row = conn.execute("SELECT MAX(seq) FROM events WHERE session_id = ?", (session_id,)).fetchone()
    return int(row[0]) if row and row[0] is not None else 0
