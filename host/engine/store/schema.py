"""SQLite schema and the per-event index maintenance, run on the store's writer thread.

Besides the raw `events` table (and its partial `events_by_type` index, see by_type.py), small
side tables keep every read O(what it returns):
`boundaries` (counted message boundaries with their cut seq, for history paging), `turns`
(start/end seq per turn: open-turn repair and fork anchors), `message_text` + `search` (FTS5
over visible text), `session_attachments` (which session references which blob) and
`inbox_pending` (how much next-turn input each session's inbox holds: what to resume at start).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
from pathlib import Path
from typing import Any

from host.engine.store import automations, blobs, commits, grants, mcp, workspaces, worktrees
from host.engine.store.base import ListedSession, SessionHeader, origin_of
from host.engine.store.named import named_row, named_rows

SCHEMA_VERSION = 1

DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    cwd TEXT,
    parent_session TEXT,
    seed_length INTEGER NOT NULL DEFAULT 0,
    agent_preset TEXT,
    title TEXT,
    title_source TEXT,
    last_activity INTEGER,
    blank INTEGER NOT NULL DEFAULT 1,
    model_json TEXT,
    origin TEXT
);
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    time INTEGER NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS events_contiguous BEFORE INSERT ON events
BEGIN
    SELECT RAISE(ABORT, 'seq gap')
    WHERE NEW.seq != COALESCE(
        (SELECT MAX(seq) FROM events WHERE session_id = NEW.session_id), -1) + 1;
END;
-- every event but the streamed deltas, by type: host/engine/store/by_type.py
CREATE INDEX IF NOT EXISTS events_by_type ON events (session_id, type, seq)
    WHERE type != 'assistant/chunk';
CREATE TABLE IF NOT EXISTS boundaries (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    cut INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL,
    start_seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    end_seq INTEGER,
    PRIMARY KEY (session_id, start_seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS turns_end ON turns (session_id, end_seq);
CREATE TABLE IF NOT EXISTS message_text (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS message_text_session ON message_text (session_id, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5(
    text, content='message_text', content_rowid='id', tokenize='trigram'
);
CREATE TABLE IF NOT EXISTS inbox_pending (
    session_id TEXT PRIMARY KEY,
    next_turn INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS attachments (
    id TEXT PRIMARY KEY,
    media_type TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS session_attachments (
    session_id TEXT NOT NULL,
    attachment_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (session_id, attachment_id)
) WITHOUT ROWID;
"""

COUNTED = frozenset({"user/message", "assistant/message"})
SEARCHED = frozenset({"user/message", "assistant/message", "steering/message"})


CACHE_KIB = 1024
"""SQLite's page cache per connection (its default is 2,000 KiB). An appending writer rereads
little and the OS caches the file anyway; the default's second MiB was half of a long session's
RSS growth per turn until it filled (docs/decisions.md "Crash windows", memory)."""


def open_connection(path: str) -> sqlite3.Connection:
    """The connection settings every user of the file shares (WAL, NORMAL sync, 5 s busy wait)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA busy_timeout=5000")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=OFF")
        conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    except BaseException:
        conn.close()
        raise
    return conn


def create_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(DDL)
    conn.executescript(grants.DDL)
    conn.executescript(blobs.DDL)
    conn.executescript(workspaces.DDL)
    conn.executescript(mcp.DDL)
    conn.executescript(worktrees.DDL)
    conn.executescript(automations.DDL)
    conn.executescript(commits.DDL)  # commit, log, push, pull request
    add_missing_columns(conn)
    conn.execute(
        "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
    )


def create_fresh(path: Path) -> None:
    """A new database file with its header and schema, built beside `path` and linked into place
    whole: an empty or headerless file at `path` is then never this app's own (see
    `faults.header_problem`). A file that appeared at `path` meanwhile is left as it is."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.new")
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            # No sync per statement: the file is made durable once, below, before it is linked
            # into place (docs/decisions/a-new-database-is-synced-once.md).
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute("PRAGMA journal_mode=MEMORY")
            create_schema(conn)
        finally:
            conn.close()
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + "-journal")):
            leftover.unlink(missing_ok=True)


def connect(path: str) -> sqlite3.Connection:
    conn = open_connection(path)
    try:
        create_schema(conn)
    except BaseException:
        conn.close()
        raise
    return conn


ADDED_COLUMNS = (
    ("sessions", "origin", "TEXT"),
    ("workspaces", "trusted", "INTEGER NOT NULL DEFAULT 0"),
)
"""Columns added after a table first shipped: a data dir from before gets them on open."""


def add_missing_columns(conn: sqlite3.Connection) -> None:
    for table, column, kind in ADDED_COLUMNS:
        present = {row.name for row in named_rows(conn.execute(f"PRAGMA table_info({table})"))}
        if column not in present:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def insert_header(conn: sqlite3.Connection, h: SessionHeader) -> None:
    conn.execute(
        "INSERT INTO sessions (id, created_at, cwd, parent_session, seed_length, agent_preset,"
        " title, title_source, last_activity, blank, model_json, origin)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            h.id,
            h.created_at,
            h.cwd,
            h.parent_session,
            h.seed_length,
            h.agent_preset,
            h.title,
            h.title_source,
            h.last_activity,
            1 if h.blank else 0,
            json.dumps(h.model) if h.model else None,
            h.origin,
        ),
    )


def visible_text(message: dict[str, Any]) -> str:
    # a file attached with `@` shows as a chip, not as text (docs/architecture.md, "The @ finder")
    content = message.get("content", [])
    parts = [b.get("text", "") for b in content if b.get("type") == "text" and not b.get("attached")]
    return "\n".join(p for p in parts if p)


def image_refs(message: dict[str, Any]) -> list[str]:
    return [
        str((block.get("attachment") or {}).get("attachmentId"))
        for block in message.get("content", [])
        if block.get("type") == "image"
    ]


def apply_event(
    conn: sqlite3.Connection, session_id: str, seq: int, etype: str, time: int, raw: str, ev: dict[str, Any]
) -> None:
    """Insert one event and keep every side table in step with it."""
    conn.execute(
        "INSERT INTO events (session_id, seq, type, time, json) VALUES (?, ?, ?, ?, ?)",
        (session_id, seq, etype, time, raw),
    )
    data: dict[str, Any] = ev.get("data") or {}
    surface_op = ev.get("surfaceOp")
    if etype in COUNTED and surface_op in (None, "append"):
        sources = ev.get("sourceEventSeqs") or []
        cut = min([seq, *sources]) if sources else seq
        conn.execute("INSERT INTO boundaries (session_id, seq, cut) VALUES (?, ?, ?)", (session_id, seq, cut))
    if etype in SEARCHED:
        message = (data.get("message") or {}) if etype == "assistant/message" else data
        text = visible_text(message)
        if text.strip():
            cur = conn.execute(
                "INSERT INTO message_text (session_id, seq, text) VALUES (?, ?, ?)", (session_id, seq, text)
            )
            conn.execute("INSERT INTO search (rowid, text) VALUES (?, ?)", (cur.lastrowid, text))
        for attachment_id in image_refs(message):
            conn.execute(
                "INSERT OR IGNORE INTO session_attachments (session_id, attachment_id, seq) VALUES (?, ?, ?)",
                (session_id, attachment_id, seq),
            )
        source = data.get("source") or {}
        if etype == "user/message" and source.get("kind") == "user":
            conn.execute("UPDATE sessions SET last_activity = ? WHERE id = ?", (time, session_id))
    elif etype == "tool/result":  # read_image's image (docs/decisions.md, "Images the agent reads")
        for attachment_id in image_refs(data.get("message") or {}):
            conn.execute(
                "INSERT OR IGNORE INTO session_attachments (session_id, attachment_id, seq) VALUES (?, ?, ?)",
                (session_id, attachment_id, seq),
            )
    elif etype == "turn/start":
        conn.execute(
            "INSERT INTO turns (session_id, start_seq, turn) VALUES (?, ?, ?)",
            (session_id, seq, int(data.get("turn", 0))),
        )
        conn.execute("UPDATE sessions SET blank = 0 WHERE id = ?", (session_id,))
    elif etype == "turn/end":
        conn.execute(
            "UPDATE turns SET end_seq = ? WHERE session_id = ? AND end_seq IS NULL", (seq, session_id)
        )
        if (data.get("reason") or {}).get("kind") != "interrupted":
            conn.execute("UPDATE sessions SET last_activity = ? WHERE id = ?", (time, session_id))
    elif etype == "session/title":
        kind = (data.get("source") or {}).get("kind")
        conn.execute(
            "UPDATE sessions SET title = ?, title_source = ? WHERE id = ?"
            " AND NOT (? = 'auto' AND COALESCE(title_source, '') = 'user')",
            (data.get("title"), kind, session_id, kind),
        )
    elif etype == "agent-preset/selected":  # the row holds the preset the session runs
        conn.execute(
            "UPDATE sessions SET agent_preset = ? WHERE id = ?", (data.get("agentPreset"), session_id)
        )
    elif etype == "agent/inbox/spliced" and data.get("target") == "next-turn":
        delta = len(data.get("inserted") or []) - int(data.get("removedCount") or 0)
        conn.execute(
            "INSERT INTO inbox_pending (session_id, next_turn) VALUES (?, MAX(0, ?))"
            " ON CONFLICT (session_id) DO UPDATE SET next_turn = MAX(0, next_turn + ?)",
            (session_id, delta, delta),
        )
    elif etype == "session/end-seed":
        conn.execute("DELETE FROM inbox_pending WHERE session_id = ?", (session_id,))
    elif etype == "request/header":
        model = {k: data[k] for k in ("provider", "model", "reasoningEffort") if data.get(k) is not None}
        conn.execute("UPDATE sessions SET model_json = ? WHERE id = ?", (json.dumps(model), session_id))


HEADER_COLUMNS = (
    "id, created_at, cwd, parent_session, seed_length, agent_preset, title, title_source,"
    " last_activity, blank, model_json, origin"
)


_DERIVED = (
    "(SELECT MAX(seq) FROM events e WHERE e.session_id = sessions.id) AS last_seq,"
    " (SELECT turn FROM turns t WHERE t.session_id = sessions.id ORDER BY start_seq DESC LIMIT 1)"
    " AS last_turn,"
    " (SELECT start_seq FROM turns t WHERE t.session_id = sessions.id AND end_seq IS NULL"
    " ORDER BY start_seq DESC LIMIT 1) AS open_turn_start"
)
"""last_seq, last_turn, open_turn_start: each an index seek, in the same statement as the row."""


def header_from(conn: sqlite3.Connection, row: Any) -> SessionHeader:
    """The header of a `HEADER_COLUMNS` row read by name (its derived values read here)."""
    derived = named_row(conn.execute(f"SELECT {_DERIVED} FROM sessions WHERE id = ?", (row.id,)))
    if derived is None:
        return _header(row, None, None, None)
    return _header(row, derived.last_seq, derived.last_turn, derived.open_turn_start)


def read_sessions(conn: sqlite3.Connection) -> list[ListedSession]:
    """Every session's listing columns in one statement, newest activity first: no derived
    value, so no per-session subquery (`session.list` of 2,000 sessions, docs/decisions.md
    "Performance and packaging")."""
    rows = named_rows(
        conn.execute(
            "SELECT id, created_at, COALESCE(last_activity, created_at) AS updated, cwd, parent_session,"
            " agent_preset, title, blank, origin FROM sessions ORDER BY updated DESC, id"
        )
    )
    return [
        ListedSession(
            id=r.id,
            created_at=r.created_at,
            updated_at=r.updated,
            cwd=r.cwd,
            parent_session=r.parent_session,
            agent_preset=r.agent_preset,
            title=r.title,
            blank=bool(r.blank),
            origin=origin_of(r.origin),
        )
        for r in rows
    ]


def _header(row: Any, last: Any, last_turn: Any, open_start: Any) -> SessionHeader:
    return SessionHeader(
        id=row.id,
        created_at=row.created_at,
        cwd=row.cwd,
        parent_session=row.parent_session,
        seed_length=row.seed_length,
        agent_preset=row.agent_preset,
        title=row.title,
        title_source=row.title_source,
        last_activity=row.last_activity,
        blank=bool(row.blank),
        model=json.loads(row.model_json) if row.model_json else None,
        origin=origin_of(row.origin),
        last_seq=-1 if last is None else int(last),
        open_turn_start=None if open_start is None else int(open_start),
        last_turn=-1 if last_turn is None else int(last_turn),
    )


def read_header(conn: sqlite3.Connection, session_id: str) -> SessionHeader | None:
    row = named_row(conn.execute(f"SELECT {HEADER_COLUMNS} FROM sessions WHERE id = ?", (session_id,)))
    return None if row is None else header_from(conn, row)
