"""Fault suite helpers: real SQLite files filled through the real store, damaged on purpose."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from contract.events import SessionEvent
from host.engine.store import DB_FILE, SessionHeader, SqliteStore
from tests.engine.conftest import engine_factory

__all__ = ["engine_factory"]  # the engine suite's fixture: real engines on tmp_path

PAGE = 4096


def session_events(turns: int, chunks: int, seed: int) -> list[SessionEvent]:
    """A plausible log: per turn start, user message, step, chunks, assistant message, ends."""
    rng = random.Random(seed)
    out: list[SessionEvent] = []

    def add(etype: str, data: dict[str, Any], **extra: Any) -> int:
        out.append(
            SessionEvent(type=etype, seq=len(out), time=1_700_000_000_000 + len(out), data=data, **extra)
        )
        return len(out) - 1

    for turn in range(turns):
        add("turn/start", {"turn": turn, "trigger": "user"})
        text = f"question {turn} " + "".join(rng.choice("abcdefgh ") for _ in range(200))
        user = {"id": f"u{turn}", "role": "user", "content": [{"type": "text", "text": text}]}
        add("user/message", {**user, "source": {"kind": "user", "rpcId": f"r{turn}"}})
        add("step/start", {"turn": turn, "step": 0})
        seqs = []
        for _ in range(chunks):
            delta = "".join(rng.choice("ijklmnop ") for _ in range(60))
            chunk = {"type": "text-delta", "index": 0, "text": delta}
            seqs.append(add("assistant/chunk", {"turn": turn, "step": 0, "chunk": chunk}))
        message = {
            "id": f"a{turn}",
            "role": "assistant",
            "content": [{"type": "text", "text": f"answer {turn}"}],
            "source": {"kind": "model"},
        }
        add("assistant/message", {"turn": turn, "step": 0, "message": message}, source_event_seqs=seqs)
        add("step/end", {"turn": turn, "step": 0})
        add("turn/end", {"turn": turn, "reason": {"kind": "completed"}})
    return out


async def fill(
    data_dir: Path, sessions: int = 3, turns: int = 6, chunks: int = 40
) -> dict[str, list[SessionEvent]]:
    """Write `sessions` sessions through the real store; returns what was written."""
    store = SqliteStore.in_dir(data_dir)
    await store.open()
    written: dict[str, list[SessionEvent]] = {}
    try:
        for n in range(sessions):
            sid = f"s-fault-{n}"
            store.register(SessionHeader(id=sid, created_at=1_700_000_000_000, cwd=str(data_dir)))
            events = session_events(turns, chunks, seed=n)
            store.append(sid, events)
            written[sid] = events
    finally:
        await store.close()
    return written


def add_noise(path: Path, offset: int, size: int = PAGE, seed: int = 7) -> None:
    """Overwrite `size` bytes at `offset` with seeded random noise."""
    noise = random.Random(seed).randbytes(size)
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(noise)


def leaf_page(path: Path, table: str) -> int:
    """The byte offset of a middle leaf page of `table` (reads of its rows will cross it)."""
    conn = sqlite3.connect(path)
    try:
        pages = [
            r[0]
            for r in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", (table,)
            )
        ]
    finally:
        conn.close()
    assert pages, f"{table} has no leaf page"
    return (pages[len(pages) // 2] - 1) * PAGE


def check(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    finally:
        conn.close()
    return [] if rows == [("ok",)] else [r[0] for r in rows]


def db_of(data_dir: Path) -> Path:
    return data_dir / DB_FILE
