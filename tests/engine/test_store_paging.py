"""History paging: the spec's worked examples, joins without gaps, and O(page) cost."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from contract.events import SessionEvent
from host.engine.store import DB_FILE, SqliteStore
from host.engine.store.paging import page_rows
from tests.engine.conftest import answered_turn, assistant_data, ev, header, user_msg
from tests.support.paging import page_window


def example_one() -> list[SessionEvent]:
    return [
        ev(0, "turn/start", {"turn": 0, "trigger": "user"}),
        ev(1, "user/message", user_msg("one", "u1")),
        ev(2, "assistant/message", assistant_data("two")),
        ev(3, "user/message", user_msg("three", "u3")),
        ev(4, "assistant/message", assistant_data("four")),
        ev(5, "compaction/summary", {"summary": "..."}),
        ev(6, "user/message", user_msg("six", "u6"), surface_op={"op": "replace", "start": 1, "end": 4}),
    ]


def example_two() -> list[SessionEvent]:
    chunk = {"turn": 0, "step": 0, "chunk": {"type": "text-delta", "index": 0, "text": "x"}}
    events = [ev(0, "turn/start", {"turn": 0, "trigger": "user"})]
    events += [ev(i, "assistant/chunk", chunk) for i in range(1, 129)]
    events.append(
        ev(129, "assistant/message", assistant_data("x" * 128), source_event_seqs=list(range(1, 129)))
    )
    return events


async def stored(store: SqliteStore, sid: str, events: list[SessionEvent]) -> None:
    store.register(header(sid))
    store.append(sid, events)


async def test_worked_example_one(store: SqliteStore) -> None:
    await stored(store, "s", example_one())
    page = await store.page("s", None, 2)
    assert [e.seq for e in page.events] == [3, 4, 5, 6] and page.has_more and page.cut == 3
    assert page_window(example_one(), None, 2) == (page.events, True)


async def test_worked_example_two(store: SqliteStore) -> None:
    await stored(store, "s", example_two())
    page = await store.page("s", None, 1)
    assert [e.seq for e in page.events] == list(range(1, 130)) and page.has_more
    events, more = page_window(example_two(), None, 1)
    assert [e.seq for e in events] == list(range(1, 130)) and more


async def test_fewer_messages_than_asked_returns_whole_window(store: SqliteStore) -> None:
    await stored(store, "s", example_one())
    page = await store.page("s", None, 50)
    assert [e.seq for e in page.events] == list(range(7)) and not page.has_more
    page = await store.page("s", 3, 50)
    assert [e.seq for e in page.events] == [0, 1, 2] and not page.has_more


async def test_tail_page_carries_in_flight_chunks(store: SqliteStore) -> None:
    events = example_two()[:50]  # the message is still streaming
    events.insert(0, ev(0, "user/message", user_msg("q")))
    events = [ev(i, e.type, e.data) for i, e in enumerate(events)]
    await stored(store, "s", events)
    page = await store.page("s", None, 1)
    assert [e.seq for e in page.events] == list(range(51)) and not page.has_more


async def test_backward_pages_join_without_gaps_or_overlaps(store: SqliteStore) -> None:
    events: list[SessionEvent] = []
    for turn in range(30):
        base = len(events)
        events += [
            ev(base, "turn/start", {"turn": turn, "trigger": "user"}),
            ev(base + 1, "user/message", user_msg(f"q{turn}", f"u{turn}")),
            ev(
                base + 2,
                "assistant/chunk",
                {"turn": turn, "step": 0, "chunk": {"type": "text-delta", "index": 0, "text": "a"}},
            ),
            ev(base + 3, "assistant/message", assistant_data("a", turn), source_event_seqs=[base + 2]),
            ev(base + 4, "turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
        ]
    await stored(store, "s", events)
    seen: list[int] = []
    before: int | None = None
    while True:
        page = await store.page("s", before, 7)
        assert all(before is None or e.seq < before for e in page.events)
        assert page_window(events, before, 7) == (page.events, page.has_more)
        seen = [e.seq for e in page.events] + seen
        if not page.has_more:
            break
        before = page.cut
    assert seen == list(range(len(events)))


def _instructions(path: Path, sid: str, before: int | None, max_messages: int) -> tuple[int, int]:
    """SQLite VM instructions (deterministic) and rows for one page read."""
    conn = sqlite3.connect(path)
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    conn.set_progress_handler(tick, 1)
    rows, _ = page_rows(conn, sid, before, max_messages)
    conn.close()
    return count[0], len(rows)


async def test_paging_cost_is_o_page_not_o_session(tmp_path: Path) -> None:
    store = SqliteStore.in_dir(tmp_path)
    await store.open()

    def session(n_turns: int) -> list[SessionEvent]:
        out: list[SessionEvent] = []
        for turn in range(n_turns):
            out += answered_turn(turn, len(out))
            b = len(out)
            out += [
                ev(b, "turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
                ev(b + 1, "step/end", {"turn": turn, "step": 0}),
                ev(b + 2, "todo/write", {"todos": []}),
                ev(b + 3, "request/header", {"provider": "local", "model": "m"}),
                ev(b + 4, "x/noise", {}),
            ]
        return out

    store.register(header("small"))
    store.append("small", session(10))  # 100 events
    store.register(header("big"))
    big = session(4_000)  # 40,000 events
    for i in range(0, len(big), 5000):
        store.append("big", big[i : i + 5000])
    await store.close()
    path = tmp_path / DB_FILE
    small_tail, small_rows = _instructions(path, "small", None, 4)
    big_tail, big_rows = _instructions(path, "big", None, 4)
    assert small_rows == big_rows == 19
    assert big_tail < small_tail * 3  # the same page costs about the same, not 400x
    small_mid, _ = _instructions(path, "small", 60, 4)
    big_mid, rows = _instructions(path, "big", 20_000, 4)
    assert rows == 19 and big_mid < small_mid * 3
    conn = sqlite3.connect(path)
    plan = " ".join(
        str(r)
        for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT cut FROM boundaries"
            " WHERE session_id = 'big' AND seq < 5 ORDER BY seq DESC LIMIT 3"
        )
    )
    assert "SEARCH" in plan and "SCAN" not in plan
    conn.close()
