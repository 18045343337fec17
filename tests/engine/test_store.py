"""SqliteStore: contiguity, laziness, batching, persistence, search, fork, attachments, export."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from contract.content import AttachmentRef
from host.engine.store import (
    DB_FILE,
    ExportAttachment,
    ExportEvent,
    ExportHeader,
    SeqGapError,
    SqliteStore,
    StoreError,
    StoreTimeout,
    UnknownSession,
)
from host.engine.store.search import match_expression, snippet
from tests.engine.conftest import assistant_data, ev, header, user_msg


def turn_events(start: int, turn: int, question: str, answer: str) -> list:
    return [
        ev(start, "turn/start", {"turn": turn, "trigger": "user"}),
        ev(start + 1, "user/message", user_msg(question, f"u{turn}")),
        ev(start + 2, "step/start", {"turn": turn, "step": 0}),
        ev(start + 3, "assistant/message", assistant_data(answer, turn)),
        ev(start + 4, "step/end", {"turn": turn, "step": 0}),
        ev(start + 5, "turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
    ]


async def test_lazy_session_writes_nothing_until_first_event(store: SqliteStore, tmp_path: Path) -> None:
    store.register(header("s1"))
    await store.flush()
    conn = sqlite3.connect(tmp_path / DB_FILE)
    assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 0
    assert (await store.header("s1")) is not None  # known in memory
    store.append("s1", [ev(0, "session/title", {"title": "x", "source": {"kind": "user"}})])
    await store.flush()
    assert conn.execute("SELECT id, title FROM sessions").fetchall() == [("s1", "x")]
    conn.close()


async def test_contiguous_seqs_and_gap_rejection(store: SqliteStore) -> None:
    store.register(header("s1"))
    store.append("s1", turn_events(0, 0, "hi", "hello"))
    with pytest.raises(SeqGapError):
        store.append("s1", [ev(7, "turn/start", {"turn": 1, "trigger": "user"})])
    with pytest.raises(SeqGapError):
        store.append("s1", [ev(5, "turn/start", {"turn": 1, "trigger": "user"})])
    with pytest.raises(SeqGapError):  # a gap inside one batch
        store.append("s1", [ev(6, "turn/start", {"turn": 1, "trigger": "user"}), ev(8, "x")])
    with pytest.raises(UnknownSession):
        store.append("nobody", [ev(0, "x")])
    events = await store.events("s1")
    assert [e.seq for e in events] == list(range(6))


async def test_database_trigger_rejects_gaps_too(tmp_path: Path, store: SqliteStore) -> None:
    store.register(header("s1"))
    store.append("s1", [ev(0, "x"), ev(1, "x")])
    await store.flush()
    conn = sqlite3.connect(tmp_path / DB_FILE)
    with pytest.raises(sqlite3.IntegrityError, match="seq gap"):
        conn.execute("INSERT INTO events VALUES ('s1', 5, 'x', 0, '{}')")
    conn.close()


async def test_appends_are_batched_not_one_transaction_per_event(store: SqliteStore) -> None:
    store.register(header("s1"))
    for seq in range(500):
        store.append("s1", [ev(seq, "assistant/chunk-like")])
    await store.flush()
    assert store.transactions < 50  # batched: far fewer transactions than events
    assert len(await store.events("s1")) == 500


async def test_settled_waits_for_its_own_write_not_for_work_queued_after_it(
    store: SqliteStore, tmp_path: Path
) -> None:
    store.register(header("s1"))
    ticket = store.append("s1", [ev(0, "x")])
    gate = threading.Event()
    blocker = asyncio.create_task(store.call(lambda conn: gate.wait(20)))  # holds the writer's thread
    await asyncio.sleep(0)
    try:
        await asyncio.wait_for(store.settled(ticket), 20)  # a flush here would wait for the blocker
        assert not blocker.done()
        conn = sqlite3.connect(tmp_path / DB_FILE)
        assert conn.execute("SELECT seq FROM events WHERE session_id = 's1'").fetchall() == [(0,)]
        conn.close()
        await store.settled(ticket)  # already settled: returns at once
    finally:
        gate.set()
    assert await blocker is True


async def test_persists_across_reopen_with_header_fields(tmp_path: Path) -> None:
    s = SqliteStore.in_dir(tmp_path)
    await s.open()
    h = header("s1", cwd="/work")
    h.agent_preset = "coder"
    s.register(h)
    s.append("s1", turn_events(0, 0, "hi", "hello"))
    s.append("s1", [ev(6, "session/title", {"title": "Greeting", "source": {"kind": "auto"}})])
    await s.close()
    s2 = SqliteStore.in_dir(tmp_path)
    await s2.open()
    got = await s2.header("s1")
    assert got is not None
    assert (got.cwd, got.agent_preset, got.title, got.title_source) == ("/work", "coder", "Greeting", "auto")
    assert got.blank is False and got.last_seq == 6 and got.open_turn_start is None
    assert got.updated_at == 1_005  # the turn/end time, not the title's
    s2.append("s1", [ev(7, "session/title", {"title": "Mine", "source": {"kind": "user"}})])
    s2.append("s1", [ev(8, "session/title", {"title": "Auto again", "source": {"kind": "auto"}})])
    got = await s2.header("s1")
    assert got is not None and got.title == "Mine"  # a user title pins it
    await s2.close()


async def test_sessions_lists_written_and_queued_rows_newest_first(store: SqliteStore) -> None:
    old, new = header("s-old", cwd="/a"), header("s-new", cwd="/b")
    old.created_at, new.created_at = 1, 2
    store.register(old)
    store.register(new)
    store.append("s-old", turn_events(0, 0, "hi", "hello"))  # its activity (1_005) is the newest
    store.append("s-old", [ev(6, "session/title", {"title": "Greeting", "source": {"kind": "auto"}})])
    await store.flush()
    queued = header("s-queued")
    queued.created_at = 3
    store.register(queued)  # no event yet: only registered, not in the file
    listed = await store.sessions()
    assert [(s.id, s.updated_at) for s in listed] == [("s-old", 1_005), ("s-queued", 3), ("s-new", 2)]
    assert (listed[0].title, listed[0].blank, listed[0].cwd) == ("Greeting", False, "/a")
    assert (listed[2].title, listed[2].blank, listed[2].cwd) == (None, True, "/b")


async def test_updated_at_ignores_interrupted_turn_end_and_plugin_messages(store: SqliteStore) -> None:
    store.register(header("s1"))
    store.append("s1", turn_events(0, 0, "hi", "hello"))
    store.append(
        "s1",
        [
            ev(6, "turn/start", {"turn": 1, "trigger": "injection"}),
            ev(7, "user/message", user_msg("notice", "p", {"kind": "plugin"})),
            ev(8, "turn/end", {"turn": 1, "reason": {"kind": "interrupted"}}),
        ],
    )
    got = await store.header("s1")
    assert got is not None and got.updated_at == 1_005


async def test_open_turn_is_reported(store: SqliteStore) -> None:
    store.register(header("s1"))
    store.append("s1", [*turn_events(0, 0, "a", "b"), ev(6, "turn/start", {"turn": 1, "trigger": "user"})])
    got = await store.header("s1")
    assert got is not None and got.open_turn_start == 6


async def test_search_is_literal_bounded_and_paged(store: SqliteStore) -> None:
    for i in range(25):
        sid = f"s{i:02d}"
        store.register(header(sid))
        store.append(sid, turn_events(0, 0, f"please refactor the parser {i}", "done: parser refactored"))
    store.register(header("odd"))
    text = 'weird "quotes" AND OR NOT (parens) * col:on ' + "x" * 400
    store.append("odd", [ev(0, "user/message", user_msg(text))])
    result = await store.search("parser")  # each message: 25 users' and 25 answers, newest first
    assert len(result.hits) == 20 and result.has_more and result.next_after is not None
    assert [sid for sid, _, _ in result.hits[:2]] == ["s24", "s24"]
    seen = list(result.hits)
    while result.has_more:
        result = await store.search("parser", after=result.next_after)
        seen += result.hits
    assert len(seen) == 50 and len(set(seen)) == 50 and result.next_after is None
    for query in ['"quotes"', "AND OR NOT", "(parens)", "col:on", "*", '"', "NEAR(a b)"]:
        res = await store.search(query)  # never an FTS syntax error
        assert isinstance(res.hits, list)
    res = await store.search('"quotes" (parens)')
    assert [sid for sid, _, _ in res.hits] == ["odd"]
    assert all(len(snip) <= 240 for _, snip, _ in res.hits)
    res = await store.search("refactored")  # assistant text is indexed too
    assert len(res.hits) == 20 and res.hits[0][1] == "done: parser refactored" and res.has_more
    res = await store.search("x")  # shorter than a trigram: substring fallback
    assert "odd" in [sid for sid, _, _ in res.hits]
    assert (await store.search("no such words anywhere")).hits == []


async def test_search_lists_every_matching_message_newest_first(store: SqliteStore) -> None:
    for sid, words in (("old", "lexer alpha"), ("mid", "lexer beta"), ("new", "lexer gamma")):
        store.register(header(sid))
        store.append(sid, turn_events(0, 0, f"fix the {words}", "ok"))
    store.append("old", turn_events(6, 1, "lexer again, newest of all", "ok"))  # written last
    hits = (await store.search("lexer")).hits
    assert hits == [
        ("old", "lexer again, newest of all", 7),  # the seq of the message the snippet is from
        ("new", "fix the lexer gamma", 1),
        ("mid", "fix the lexer beta", 1),
        ("old", "fix the lexer alpha", 1),  # one session's two messages are two hits
    ]


async def test_search_within_a_session_steps_through_its_hits_in_order(store: SqliteStore) -> None:
    """Issue 46, item 3: a session shows "n of N" and steps to the next and previous hit."""
    store.register(header("long"))
    for turn in range(30):
        store.append("long", turn_events(turn * 6, turn, f"step {turn}: the needle moves", "fine"))
    store.register(header("other"))
    store.append("other", turn_events(0, 0, "a needle elsewhere", "ok"))
    first = await store.search("needle", limit=20, session_id="long")
    assert first.total == 30 and first.has_more
    assert [seq for _, _, seq in first.hits] == [turn * 6 + 1 for turn in range(20)]
    assert {sid for sid, _, _ in first.hits} == {"long"}
    rest = await store.search("needle", limit=20, session_id="long", after=first.next_after)
    assert [seq for _, _, seq in rest.hits] == [turn * 6 + 1 for turn in range(20, 30)]
    assert not rest.has_more and rest.total == 30
    assert (await store.search("needle", session_id="nope")).hits == []


def test_match_expression_and_snippet_shapes() -> None:
    assert match_expression(['a"b"c', "xy"]) == '"a""b""c"'
    assert match_expression(["ab"]) is None
    long = "word " * 200 + "needle " + "tail " * 200
    snip = snippet(long, ["needle"])
    assert "needle" in snip and len(snip) <= 240 and snip.startswith("…") and snip.endswith("…")
    assert snippet("short  text", ["x"]) == "short text"


async def test_attachments_only_for_referencing_sessions(store: SqliteStore) -> None:
    ref = AttachmentRef(attachment_id="sha256-abc", media_type="image/png", bytes=3, width=1, height=1)
    store.put_attachment(ref, b"png")
    store.put_attachment(ref, b"png")  # content-addressed: stored once
    store.register(header("s1"))
    msg = user_msg("look")
    msg["content"].append({"type": "image", "attachment": ref.dump()})
    store.append("s1", [ev(0, "user/message", msg)])
    store.register(header("s2"))
    store.append("s2", [ev(0, "user/message", user_msg("other"))])
    found = await store.attachment("s1", "sha256-abc")
    assert found is not None and found[0] == ref and found[1] == b"png"
    assert await store.attachment("s2", "sha256-abc") is None


async def test_fork_copies_prefix_with_side_tables(store: SqliteStore) -> None:
    store.register(header("src", cwd="/w"))
    store.append("src", [*turn_events(0, 0, "alpha question", "alpha answer")])
    store.append("src", [ev(6, "request/header", {"provider": "local", "model": "m1"})])
    store.append("src", [*turn_events(7, 1, "beta question", "beta answer")])
    store.append("src", [ev(13, "turn/start", {"turn": 2, "trigger": "user"})])
    assert await store.fork_anchor("src", 2) == 5
    assert await store.fork_anchor("src", 5) == 5
    assert await store.fork_anchor("src", 8) == 12
    assert await store.fork_anchor("src", 13) is None  # inside the open turn
    assert await store.fork_anchor("src", None) == 12
    assert await store.fork_anchor("src", 99) == 12
    child = header("child", cwd="/w")
    child.parent_session = "src"
    await store.fork("src", child, 12)
    got = await store.header("child")
    assert got is not None
    assert (got.last_seq, got.seed_length, got.parent_session) == (12, 13, "src")
    assert got.model == {"provider": "local", "model": "m1"} and not got.blank
    page = await store.page("child", None, 1)
    assert [e.seq for e in page.events] == [10, 11, 12]
    hits = await store.search("beta question")
    assert {sid for sid, _, _ in hits.hits} == {"src", "child"}
    with pytest.raises(SeqGapError):
        store.append("child", [ev(12, "x")])
    store.append("child", [ev(13, "session/end-seed")])
    assert len(await store.events("child")) == 14


async def test_export_import_round_trip_is_exact(tmp_path: Path) -> None:
    a = SqliteStore(tmp_path / "a.sqlite3")
    await a.open()
    ref = AttachmentRef(attachment_id="sha256-img", media_type="image/gif", bytes=4, width=2, height=3)
    a.put_attachment(ref, b"GIF8")
    a.register(header("s1", cwd="/p"))
    msg = user_msg("with image ✓")
    msg["content"].append({"type": "image", "attachment": ref.dump()})
    events = [ev(0, "turn/start", {"turn": 0, "trigger": "user"}), ev(1, "user/message", msg)]
    events += [
        ev(
            i,
            "assistant/chunk",
            {"turn": 0, "step": 0, "chunk": {"type": "text-delta", "index": 0, "text": "x"}},
        )
        for i in range(2, 1200)
    ]
    a.append("s1", events)
    rows = [row async for row in a.export_rows("s1")]
    assert isinstance(rows[0], ExportHeader) and isinstance(rows[-1], ExportAttachment)
    assert sum(isinstance(r, ExportEvent) for r in rows) == 1200
    with pytest.raises(StoreError):
        await a.import_rows(rows)  # already there
    await a.close()
    b = SqliteStore(tmp_path / "b.sqlite3")
    await b.open()
    assert await b.import_rows(iter(rows)) == "s1"
    again = [row async for row in b.export_rows("s1")]
    assert again == rows
    got = await b.attachment("s1", "sha256-img")
    assert got is not None and got[1] == b"GIF8"
    await b.close()


async def test_a_broken_import_writes_nothing(tmp_path: Path) -> None:
    a = SqliteStore(tmp_path / "a.sqlite3")
    await a.open()
    ref = AttachmentRef(attachment_id="sha256-gif", media_type="image/gif", bytes=4, width=1, height=1)
    a.put_attachment(ref, b"GIF8")
    a.register(header("s1"))
    a.append(
        "s1",
        [ev(0, "turn/start", {"turn": 0, "trigger": "user"}), ev(1, "step/start", {"turn": 0, "step": 0})],
    )
    rows = [row async for row in a.export_rows("s1")]
    await a.close()
    gap = [r for r in rows if not (isinstance(r, ExportEvent) and '"seq":0' in r.json)]  # seq 0 missing
    b = SqliteStore(tmp_path / "b.sqlite3")
    await b.open()
    with pytest.raises(SeqGapError):
        await b.import_rows(gap)
    assert await b.header("s1") is None and not b.known("s1")
    assert await b.events("s1") == []
    assert await b.import_rows(rows) == "s1"  # the good archive still imports afterwards
    assert len(await b.events("s1")) == 2
    await b.close()


async def test_a_wait_for_a_write_is_bounded_and_a_cancelled_one_leaves_the_others(tmp_path: Path) -> None:
    """The own-write wait's bound is a timer (no `wait_for` around a `shield`): past it the
    typed timeout; a waiter cancelled meanwhile is skipped when its write settles."""
    store = SqliteStore.in_dir(tmp_path / "bounded", call_timeout=0.5)
    await store.open()
    gate, entered = threading.Event(), threading.Event()

    def hold(conn: sqlite3.Connection) -> None:
        entered.set()
        gate.wait(20)

    try:
        store.register(header("s1"))
        blocker = asyncio.ensure_future(store.call(hold))  # holds the writer's thread
        assert await asyncio.to_thread(entered.wait, 20)
        ticket = store.append("s1", [ev(0, "x")])
        with pytest.raises(StoreTimeout, match=r"did not answer within 0.5s \(saving\)"):
            await store.settled(ticket)
        cancelled = asyncio.ensure_future(store.settled(ticket))
        await asyncio.sleep(0)
        cancelled.cancel()
        gate.set()
        await asyncio.gather(blocker, return_exceptions=True)  # past the same bound itself
        await asyncio.wait_for(store.settled(ticket), 20)
        assert cancelled.cancelled()
        assert [e.seq for e in await store.events("s1")] == [0]
    finally:
        gate.set()
        await store.close()
