"""Events by type (the newest plan/mode, the inbox records, the latest answer): the same answers
as a scan of the log, at a cost that does not grow with the session (VM instructions, not time)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from contract.events import SessionEvent
from host.engine.store import DB_FILE, SqliteStore, by_type
from tests.engine.conftest import answered_turn, ev, header


def session(n_turns: int, plan_every: int) -> list[SessionEvent]:
    out: list[SessionEvent] = []
    for turn in range(n_turns):
        out += answered_turn(turn, len(out))
        b = len(out)
        out += [
            ev(b, "step/end", {"turn": turn, "step": 0}),
            ev(b + 1, "turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
        ]
        if turn % plan_every == plan_every - 1:
            out.append(ev(len(out), "plan/mode", {"active": turn % 2 == 0}))
    return out


def counted(path: Path, read: Callable[[sqlite3.Connection], Any]) -> tuple[int, Any]:
    """SQLite VM instructions (deterministic) and the result of one read."""
    conn = sqlite3.connect(path)
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    conn.set_progress_handler(tick, 1)
    try:
        result = read(conn)
        return count[0], result
    finally:
        conn.close()


def seqs(rows: list[str] | str | None) -> list[int]:
    if rows is None:
        return []
    return [json.loads(r)["seq"] for r in ([rows] if isinstance(rows, str) else rows)]


async def test_reads_by_type_match_the_log_and_cost_the_same_for_100_or_40_000_events(
    tmp_path: Path,
) -> None:
    logs = {"small": session(15, 5), "big": session(5_800, 2_500), "none": session(5_800, 10**9)}
    # 40,000 events are written before the first read: on a loaded machine that can take longer
    # than the product's bound on one read waiting behind the writer (a stuck-disk guard)
    store = SqliteStore.in_dir(tmp_path, call_timeout=180.0)
    await store.open()
    for sid, events in logs.items():
        store.register(header(sid))
        for i in range(0, len(events), 5000):
            store.append(sid, events[i : i + 5000])
    assert [e.seq for e in await store.events_of_types("big", ("plan/mode",))] == [
        e.seq for e in logs["big"] if e.type == "plan/mode"
    ]
    await store.close()
    path = tmp_path / DB_FILE

    def truth(sid: str, types: tuple[str, ...]) -> list[int]:
        return [e.seq for e in logs[sid] if e.type in types]

    cost: dict[str, int] = {}
    for sid in logs:
        n, rows = counted(path, partial(by_type.rows_of_types, session_id=sid, types=("plan/mode",)))
        assert seqs(rows) == truth(sid, ("plan/mode",))
        m, row = counted(path, partial(by_type.latest_row_of_types, session_id=sid, types=("plan/mode",)))
        assert seqs(row) == truth(sid, ("plan/mode",))[-1:]
        kinds = ("assistant/message", "plan/mode")
        k, row = counted(path, partial(by_type.latest_row_of_types, session_id=sid, types=kinds))
        assert seqs(row) == truth(sid, kinds)[-1:]
        cost[sid] = n + m + k
    # 40,000 events cost about what 100 do (a scan would be ~400x): no plan/mode, or two
    assert cost["big"] < cost["small"] * 3 and cost["none"] < cost["small"] * 3, cost
    # the streamed deltas are not in the index, and are still found when asked for
    _, chunks = counted(path, lambda c: by_type.rows_of_types(c, "small", ("assistant/chunk",)))
    assert seqs(chunks) == truth("small", ("assistant/chunk",))
    _, both = counted(path, lambda c: by_type.rows_of_types(c, "small", ("assistant/chunk", "plan/mode")))
    assert seqs(both) == truth("small", ("assistant/chunk", "plan/mode"))
