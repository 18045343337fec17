"""The host-side record of what a step changed (`snapshot_checkpoints`, DDL in
`host/engine/store/blobs.py`): per (session, turn, path) the content before the turn's first change,
as a blob id of the workspace's shadow repository. Run on the store's writer thread
(`Store.call`). A revert trusts these rows, never the log alone (docs/threat-model.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from host.engine.store.named import named_row


@dataclass(frozen=True)
class Kept:
    sha256: str | None
    """None: the file did not exist before."""
    oid: str | None
    repo: str


@dataclass(frozen=True)
class Unit:
    """What pruning drops at once: one turn's rows in one repository."""

    session_id: str
    turn: int
    created: int
    repo: str
    oids: tuple[str, ...]


def write(
    conn: sqlite3.Connection,
    session_id: str,
    turn: int,
    repo: str,
    created: int,
    rows: Sequence[tuple[str, str | None, str | None]],
) -> None:
    """(path, sha256, oid) per file; the first row of a (session, turn, path) wins."""
    conn.executemany(
        "INSERT OR IGNORE INTO snapshot_checkpoints (session_id, turn, path, sha256, oid, repo, created)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(session_id, turn, path, sha, oid, repo, created) for path, sha, oid in rows],
    )


def read(conn: sqlite3.Connection, session_id: str, turn: int, path: str) -> Kept | None:
    row = named_row(
        conn.execute(
            "SELECT sha256, oid, repo FROM snapshot_checkpoints"
            " WHERE session_id = ? AND turn = ? AND path = ?",
            (session_id, turn, path),
        )
    )
    return None if row is None else Kept(row.sha256, row.oid, row.repo)


def units(conn: sqlite3.Connection, repos: Sequence[str]) -> list[Unit]:
    """Every turn's rows in these repositories, oldest first."""
    marks = ",".join("?" * len(repos))
    found: dict[tuple[str, int, str], tuple[int, list[str]]] = {}
    sql = (
        "SELECT session_id, turn, repo, created, oid FROM snapshot_checkpoints"
        f" WHERE repo IN ({marks}) ORDER BY created"
    )
    for sid, turn, repo, created, oid in conn.execute(sql, tuple(repos)):
        key = (sid, int(turn), repo)
        _, oids = found.setdefault(key, (int(created), []))
        if oid is not None:
            oids.append(oid)
    out = [Unit(s, t, c, r, tuple(o)) for (s, t, r), (c, o) in found.items()]
    return sorted(out, key=lambda u: u.created)


def drop(conn: sqlite3.Connection, dropped: Sequence[Unit]) -> None:
    conn.executemany(
        "DELETE FROM snapshot_checkpoints WHERE session_id = ? AND turn = ? AND repo = ?",
        [(u.session_id, u.turn, u.repo) for u in dropped],
    )


def drop_repo(conn: sqlite3.Connection, repo: str) -> int:
    return conn.execute("DELETE FROM snapshot_checkpoints WHERE repo = ?", (repo,)).rowcount
