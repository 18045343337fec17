"""Salvage a damaged database into a new file: whatever SQLite can still read, nothing invented.

Reads go key by key around damaged pages: a range scan that hits a bad page is continued with
point lookups past it. Each session's readable events are copied in seq order; when some are
lost the rest are renumbered contiguously (the log must have no gaps) and the seqs an event
names (`sourceEventSeqs`, a replace range) are mapped to the new numbers. Side tables (paging,
turns, search, pending input) are rebuilt from the events by the same code the live store uses;
the host-side rows are copied: pinned presets, "Allow always" rules, and the file checkpoints
whose content still matches its hash. The damaged
file itself is never modified (docs/decisions.md "Reliability").
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contract.events import SessionEvent
from host.engine.store import blobs, grants
from host.engine.store.base import SessionHeader
from host.engine.store.named import named_values
from host.engine.store.schema import HEADER_COLUMNS, apply_event, connect, insert_header

MISSES = 2000
"""Consecutive unreadable or absent keys after which a scan stops looking further."""
CHUNK = 256


@dataclass
class SalvageReport:
    sessions: int = 0
    events: int = 0
    attachments: int = 0
    lost_events: dict[str, int] = field(default_factory=dict)
    """Session → events that could not be read (holes, unreadable or invalid rows)."""
    headerless: list[str] = field(default_factory=list)
    """Sessions whose header row was lost (rebuilt from their events)."""

    @property
    def lost(self) -> int:
        return sum(self.lost_events.values())


def _one(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The first row, or None when there is none or it cannot be read."""
    try:
        row: tuple[Any, ...] | None = conn.execute(sql, params).fetchone()
    except (sqlite3.DatabaseError, ValueError):
        return None
    return row


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Rows of a query until it ends or hits a damaged page (then it just stops)."""
    try:
        cursor = conn.execute(sql, params)
        while (row := cursor.fetchone()) is not None:
            yield row
    except (sqlite3.DatabaseError, ValueError):
        return


def scan_rowid_table(conn: sqlite3.Connection, table: str, columns: str) -> Iterator[tuple[Any, ...]]:
    """`(rowid, *columns)` of every readable row of a rowid table, in rowid order."""
    last = 0
    while True:
        for row in _rows(
            conn, f"SELECT rowid, {columns} FROM {table} WHERE rowid > ? ORDER BY rowid", (last,)
        ):
            last = row[0]
            yield row
        top = _one(conn, f"SELECT MAX(rowid) FROM {table}")
        if top is not None and (top[0] is None or last >= top[0]):
            return
        # stopped early (a damaged page) or cannot tell: probe past it one key at a time
        found = None
        for probe in range(last + 1, last + 1 + MISSES):
            found = _one(conn, f"SELECT rowid, {columns} FROM {table} WHERE rowid = ?", (probe,))
            if found is not None:
                break
        if found is None:
            return
        last = found[0]
        yield found


def session_ids(conn: sqlite3.Connection) -> list[str]:
    """Every session id any table still names."""
    ids: set[str] = set()
    for row in scan_rowid_table(conn, "sessions", "id"):
        ids.add(str(row[1]))
    for table in ("turns", "boundaries", "message_text", "session_attachments"):
        for row in _rows(conn, f"SELECT DISTINCT session_id FROM {table}"):
            ids.add(str(row[0]))
    last = ""
    sql = "SELECT session_id FROM events WHERE session_id > ? ORDER BY session_id LIMIT 1"
    while (found := _one(conn, sql, (last,))) is not None:  # skip-scan: one lookup per session
        last = str(found[0])
        ids.add(last)
    return sorted(ids)


def _hint_max(conn: sqlite3.Connection, sid: str) -> int:
    queries = (
        "SELECT MAX(seq) FROM events WHERE session_id = ?",
        "SELECT MAX(seq) FROM boundaries WHERE session_id = ?",
        "SELECT MAX(COALESCE(end_seq, start_seq)) FROM turns WHERE session_id = ?",
        "SELECT MAX(seq) FROM message_text WHERE session_id = ?",
    )
    found = [_one(conn, q, (sid,)) for q in queries]
    return max([int(r[0]) for r in found if r is not None and r[0] is not None], default=-1)


def scan_events(conn: sqlite3.Connection, sid: str) -> Iterator[tuple[int, str]]:
    """`(seq, json)` of every readable event of `sid`, in seq order."""
    top = _hint_max(conn, sid)
    seq = 0
    ranged = "SELECT seq, json FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq"
    point = "SELECT seq, json FROM events WHERE session_id = ? AND seq = ?"
    while True:
        for row in _rows(conn, ranged, (sid, seq)):
            seq = int(row[0]) + 1
            yield int(row[0]), str(row[1])
        rest = _one(conn, "SELECT COUNT(*) FROM events WHERE session_id = ? AND seq >= ?", (sid, seq))
        if rest is not None and rest[0] == 0 and seq > top:
            return
        for _ in range(MISSES):  # probe past the damage
            probed = _one(conn, point, (sid, seq))
            seq += 1
            if probed is not None:
                yield int(probed[0]), str(probed[1])
                break
        else:
            return


def _renumber(raw: dict[str, Any], new_seq: int, mapping: dict[int, int]) -> dict[str, Any]:
    out = dict(raw)
    out["seq"] = new_seq
    sources = raw.get("sourceEventSeqs")
    if isinstance(sources, list):
        out["sourceEventSeqs"] = [mapping[s] for s in sources if isinstance(s, int) and s in mapping]
    op = raw.get("surfaceOp")
    if isinstance(op, dict) and op.get("op") == "replace":
        kept = sorted(v for k, v in mapping.items() if op.get("start", 0) <= k <= op.get("end", -1))
        if kept:
            out["surfaceOp"] = {**op, "start": kept[0], "end": kept[-1]}
        else:
            out.pop("surfaceOp", None)
    return out


def _header(conn: sqlite3.Connection, sid: str) -> SessionHeader | None:
    sql = f"SELECT {HEADER_COLUMNS} FROM sessions WHERE id = ?"
    found = _one(conn, sql, (sid,))
    if found is None:
        return None
    row = named_values(HEADER_COLUMNS, found)
    return SessionHeader(
        id=str(row.id),
        created_at=int(row.created_at),
        cwd=row.cwd,
        parent_session=row.parent_session,
        seed_length=int(row.seed_length or 0),
        agent_preset=row.agent_preset,
        title=row.title,
        title_source=row.title_source if row.title_source in ("user", "auto") else None,
        last_activity=row.last_activity,
        blank=bool(row.blank),
    )


def salvage(source: Path, target: Path) -> SalvageReport:
    """Copy what can be read of `source` into the new database `target` (which must not exist)."""
    if target.exists():
        raise FileExistsError(target)
    report = SalvageReport()
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, isolation_level=None)
    dst = connect(str(target))
    try:
        dst.execute("BEGIN")
        for row in scan_rowid_table(src, "attachments", "id, media_type, bytes, width, height, data"):
            _, aid, media, size, width, height, data = row
            if isinstance(data, bytes) and len(data) == size:
                dst.execute(
                    "INSERT OR IGNORE INTO attachments (id, media_type, bytes, width, height, data)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (aid, media, size, width, height, data),
                )
                report.attachments += 1
        for sid in session_ids(src):
            _copy_session(src, dst, sid, report)
        dst.execute("COMMIT")
    finally:
        src.close()
        dst.close()
    return report


def _copy_session(src: sqlite3.Connection, dst: sqlite3.Connection, sid: str, report: SalvageReport) -> None:
    good: list[tuple[int, dict[str, Any], str]] = []
    expected = 0
    lost = 0
    for seq, text in scan_events(src, sid):
        lost += max(0, seq - expected)
        expected = seq + 1
        try:
            raw = json.loads(text)
            SessionEvent.model_validate(raw)
        except (ValueError, ValidationError):
            lost += 1
            continue
        good.append((seq, raw, text))
    lost += max(0, _hint_max(src, sid) + 1 - expected)
    header = _header(src, sid)
    if header is None:
        if not good:
            return
        report.headerless.append(sid)
        header = SessionHeader(id=sid, created_at=int(good[0][1].get("time", 0)))
    mapping = {old: new for new, (old, _, _) in enumerate(good)}
    insert_header(dst, header)
    for new, (old, raw, text) in enumerate(good):
        event = raw
        if new != old or lost:
            event = _renumber(raw, new, mapping)
            text = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        apply_event(dst, sid, new, str(event["type"]), int(event["time"]), text, event)
    _copy_permissions(src, dst, sid)
    _copy_checkpoints(src, dst, sid)
    report.sessions += 1
    report.events += len(good)
    if lost:
        report.lost_events[sid] = lost


def _copy_permissions(src: sqlite3.Connection, dst: sqlite3.Connection, sid: str) -> None:
    """The session's pinned permission preset and "Allow always" rules: host-side rows that no
    event rebuilds (host/engine/store/grants.py). Without its pin a session would fall back to
    whatever the default preset is now, which may be less strict."""
    policies = "SELECT preset, created_at FROM session_policies WHERE session_id = ?"
    rules = "SELECT tool, scope, created_at FROM grants WHERE session_id = ?"
    try:
        for preset, created_at in _rows(src, policies, (sid,)):
            grants.write_policy(dst, sid, str(preset), int(created_at))
        for tool, scope, created_at in _rows(src, rules, (sid,)):
            grants.write_grant(dst, sid, grants.Grant(str(tool), str(scope), int(created_at)))
    except (TypeError, ValueError):
        return  # a damaged row: the rest of that session's rules are asked for again


def _copy_checkpoints(src: sqlite3.Connection, dst: sqlite3.Connection, sid: str) -> None:
    """The session's file checkpoints (host-side, what undo restores) whose content still reads
    back with its own hash: a damaged blob is dropped, never restored into someone's file."""
    sql = "SELECT turn, path, sha256 FROM file_checkpoints WHERE session_id = ?"
    for turn, path, sha in _rows(src, sql, (sid,)):
        data = None
        if sha is not None:
            found = _one(src, "SELECT data FROM file_blobs WHERE sha256 = ?", (sha,))
            data = bytes(found[0]) if found is not None and found[0] is not None else None
            if data is None or hashlib.sha256(data).hexdigest() != sha:
                continue  # undo then says this file has no checkpoint
        try:
            blobs.write_checkpoint(dst, sid, int(turn), str(path), sha, data)
        except (TypeError, ValueError):
            continue
    # a shell step's rows (their content is in the snapshot repositories, checked when reverting)
    snaps = "SELECT turn, path, sha256, oid, repo, created FROM snapshot_checkpoints WHERE session_id = ?"
    roots = "SELECT turn, root FROM checkpoint_roots WHERE session_id = ?"
    for row in _rows(src, snaps, (sid,)):
        with contextlib.suppress(sqlite3.Error):
            dst.execute(
                "INSERT OR IGNORE INTO snapshot_checkpoints"
                " (session_id, turn, path, sha256, oid, repo, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sid, *row),
            )
    for turn, root in _rows(src, roots, (sid,)):
        with contextlib.suppress(sqlite3.Error, TypeError, ValueError):
            blobs.write_root(dst, sid, int(turn), str(root))
