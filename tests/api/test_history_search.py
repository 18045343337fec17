"""`session.history` paging and `session.search` through the API (docs/architecture.md,
"History paging")."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from contract.events import SessionEvent
from contract.methods import SESSION_CANCEL, SESSION_HISTORY, SESSION_SEARCH
from tests.api.conftest import Host
from tests.api.support import Frames, err, event, ok, page_events, prompt, run_turn
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def reference_page(
    events: list[SessionEvent], before: int | None, max_messages: int
) -> tuple[list[SessionEvent], bool]:
    """The paging rule (docs/architecture.md, "History paging") written out plainly: the page
    the host must return."""
    window = [e for e in events if before is None or e.seq < before]
    counted = 0
    for e in reversed(window):
        if e.type in ("user/message", "assistant/message") and e.surface_op in (None, "append"):
            counted += 1
            if counted == max_messages:
                cut = min([e.seq, *(e.source_event_seqs or [])])
                return [x for x in window if x.seq >= cut], cut > 0
    return window, False


def dumps(events: list[SessionEvent]) -> list[dict[str, Any]]:
    return [e.dump() for e in events]


async def history(client: Any, sid: str, **extra: Any) -> Any:
    """A page with its entries unwrapped to events (this file tests the paging of events)."""
    value = await ok(client, SESSION_HISTORY, {"sessionId": sid, **extra})
    assert all(set(e.dump()) <= {"event", "view"} for e in value.events)
    return SimpleNamespace(events=page_events(value), has_more=value.has_more, projections=value.projections)


async def varied_session(host: Host, llm: ScriptedLlmServer) -> tuple[Any, Frames, str]:
    """Five turns: plain replies, reasoning, a read-only tool step, a one-chunk answer."""
    (host.workdir / "notes.txt").write_text("some notes\n")
    llm.enqueue(
        Reply(text="A first answer in several chunks.", chunk_size=5),
        Reply(reasoning="thinking it over", text="Reasoned answer.", chunk_size=6),
        Reply(tool_calls=[("c1", "list_dir", '{"path": "."}')]),
        Reply(text="The folder has notes.txt.", chunk_size=7),
        Reply(text="ok", chunk_size=50),
        Reply(text="Last words, streamed slowly enough.", chunk_size=3),
    )
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    for words in ("one", "two", "list the folder", "four", "five"):
        await run_turn(client, mux, sid, words)
    return client, mux, sid


async def test_pages_follow_the_spec_and_join_without_gaps(host: Host, llm: ScriptedLlmServer) -> None:
    client, _, sid = await varied_session(host, llm)
    whole = await history(client, sid, maxMessages=10_000)
    events = whole.events
    assert whole.has_more is False
    assert [e.seq for e in events] == list(range(len(events)))
    assert {"assistant/chunk", "tool/call", "tool/result", "session/title"} <= {e.type for e in events}
    default = await history(client, sid)  # maxMessages defaults to 50: everything here
    assert dumps(default.events) == dumps(events) and default.has_more is False
    for max_messages in (1, 2, 3, 4, 7):
        pages: list[list[SessionEvent]] = []
        before: int | None = None
        while True:
            extra: dict[str, Any] = {"maxMessages": max_messages}
            if before is not None:
                extra["beforeSeq"] = before
            page = await history(client, sid, **extra)
            expected, more = reference_page(events, before, max_messages)
            assert dumps(page.events) == dumps(expected), (max_messages, before)
            assert page.has_more is more
            if before is None:
                assert page.projections is not None
                assert page.projections.as_of_seq == events[-1].seq
                assert page.projections.values["title"] == "one"
                assert page.projections.values["context"]["window"] == 32_768
            else:
                assert page.projections is None
                assert all(e.seq < before for e in page.events)
            if page.has_more:  # a cut page starts at a message boundary
                first = page.events[0]
                assert first.type == "user/message" or any(
                    first.seq in (m.source_event_seqs or [m.seq])
                    for m in page.events
                    if m.type == "assistant/message"
                ), (max_messages, before, first.type)
            pages.append(page.events)
            if not page.has_more:
                break
            before = page.events[0].seq
        joined = [e for page_events in reversed(pages) for e in page_events]
        assert dumps(joined) == dumps(events), f"pages of {max_messages} do not join exactly"


async def test_page_edges(host: Host, llm: ScriptedLlmServer) -> None:
    client, _, sid = await varied_session(host, llm)
    events = (await history(client, sid, maxMessages=10_000)).events
    empty = await history(client, sid, beforeSeq=0)
    assert empty.events == [] and empty.has_more is False and empty.projections is None
    past_the_end = await history(client, sid, beforeSeq=10**9, maxMessages=10_000)
    assert dumps(past_the_end.events) == dumps(events) and past_the_end.projections is None
    one = await history(client, sid, beforeSeq=2, maxMessages=5)
    assert [e.seq for e in one.events] == [0, 1] and one.has_more is False
    assistant = next(e for e in events if e.type == "assistant/message" and e.source_event_seqs)
    cut = min(assistant.source_event_seqs)
    tail = await history(client, sid, beforeSeq=assistant.seq + 1, maxMessages=1)
    assert tail.events[0].seq == cut and tail.events[-1].seq == assistant.seq and tail.has_more is True
    blank = await host.create()
    fresh = await history(client, blank)
    assert fresh.events == [] and fresh.has_more is False
    assert fresh.projections is not None and fresh.projections.as_of_seq == -1


async def test_tail_page_carries_the_chunks_of_a_message_still_streaming(
    host: Host, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(text="done"), Reply(text="abcdefghijklmnop", chunk_size=2, hang_after=4))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "before")
    await prompt(client, sid, "streaming now")
    shown = ""  # four deltas of two characters, then the provider hangs
    while shown != "abcdefgh":
        _, chunk = await mux.next(
            lambda f: event("assistant/chunk", sid)(f) and f.event.data["chunk"]["type"] == "text-delta"
        )
        shown += chunk.event.data["chunk"]["text"]
    # no wait needed: store reads run after every write submitted so far
    page = await history(client, sid, maxMessages=1)
    types = [e.type for e in page.events]
    assert types[0] == "user/message" and page.events[0].data["content"][0]["text"] == "streaming now"
    deltas = [
        e.data["chunk"]["text"]
        for e in page.events
        if e.type == "assistant/chunk" and e.data["chunk"]["type"] == "text-delta"
    ]
    assert "".join(deltas) == "abcdefgh"
    assert "assistant/message" not in types[1:] and page.has_more is True
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    await mux.next(event("turn/end", sid))


async def test_search_finds_sessions_with_bounds(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    sids = [await host.create() for _ in range(22)]
    for i, sid in enumerate(sids):
        await prompt(client, sid, f"needle haystack item{i:02d} {'filler ' * 3}")
    done: set[str] = set()
    while len(done) < len(sids):
        _, frame = await mux.next(event("turn/end"))
        done.add(frame.session_id)
    found = await ok(client, SESSION_SEARCH, {"query": "needle"})
    assert len(found.items) == 20 and found.has_more is True
    assert len({h.session_id for h in found.items}) == 20 and {h.session_id for h in found.items} <= set(sids)
    one = await ok(client, SESSION_SEARCH, {"query": "   item07 \t\n"})
    assert [h.session_id for h in one.items] == [sids[7]] and one.has_more is False
    assert "item07" in one.items[0].snippet
    history = await ok(client, SESSION_HISTORY, {"sessionId": sids[7]})
    hit = next(e for e in page_events(history) if e.seq == one.items[0].seq)  # the message it matched
    assert hit.type == "user/message" and "item07" in hit.data["content"][0]["text"]
    both = await ok(client, SESSION_SEARCH, {"query": "haystack item13"})
    assert [h.session_id for h in both.items] == [sids[13]]
    assert (await ok(client, SESSION_SEARCH, {"query": "item13 nowhere-to-be-found"})).items == []
    # assistant text is indexed too (the scripted default reply)
    assert len((await ok(client, SESSION_SEARCH, {"query": "scripted default"})).items) == 20
    # FTS syntax is literal text, never an error
    for literal in ('needle" OR *', "NEAR(needle", "item0*", "-needle", "a AND", '"'):
        assert (await client.call(SESSION_SEARCH, {"query": literal})).result.ok, literal
    assert (await ok(client, SESSION_SEARCH, {"query": "x" * 500})).items == []
    assert (await ok(client, SESSION_SEARCH, {"query": "  " + "y" * 500 + "  "})).has_more is False
    for bad in ("", "   ", "x" * 501, "needle\x00", "\x00"):
        error = await err(client, SESSION_SEARCH, {"query": bad}, "bad-request")
        assert error.details["issues"]


async def test_search_snippets_are_at_most_240_code_points(host: Host, llm: ScriptedLlmServer) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    astral = "\U0001f600\U0001f680 "  # two code points each outside the BMP (four UTF-16 units)
    words = astral * 150 + "the middle-marker sits here " + "\u00e9t\u00e9 " * 200
    await run_turn(client, mux, sid, words)
    found = await ok(client, SESSION_SEARCH, {"query": "middle-marker"})
    assert [h.session_id for h in found.items] == [sid]
    snippet = found.items[0].snippet
    assert "middle-marker" in snippet and 0 < len(snippet) <= 240
    raw = json.dumps({"s": snippet}, ensure_ascii=False)
    assert len(json.loads(raw)["s"]) <= 240
    short = await ok(client, SESSION_SEARCH, {"query": "\U0001f680"})  # shorter than a trigram
    assert [h.session_id for h in short.items] == [sid] and len(short.items[0].snippet) <= 240


async def test_search_pages_every_message_and_counts_a_sessions_hits(
    host: Host, llm: ScriptedLlmServer
) -> None:
    """Issue 46, item 3: each matching message is a hit, paged by `cursor`; with `sessionId` the
    hits of one session in reading order and their number, for "n of N" and next/previous."""
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    for i in range(25):
        await run_turn(client, mux, sid, f"turn {i}: where is the lantern")
    other = await host.create()
    await run_turn(client, mux, other, "a lantern elsewhere")
    first = await ok(client, SESSION_SEARCH, {"query": "lantern"})
    assert len(first.items) == 20 and first.has_more and first.cursor and first.total is None
    second = await ok(client, SESSION_SEARCH, {"query": "lantern", "cursor": first.cursor})
    assert len(second.items) == 6 and not second.has_more and second.cursor is None
    assert len({(h.session_id, h.seq) for h in [*first.items, *second.items]}) == 26

    inside = await ok(client, SESSION_SEARCH, {"query": "lantern", "sessionId": sid, "limit": 10})
    assert inside.total == 25 and inside.has_more and {h.session_id for h in inside.items} == {sid}
    seqs = [h.seq for h in inside.items]
    assert seqs == sorted(seqs) and "turn 0:" in inside.items[0].snippet
    more = await ok(client, SESSION_SEARCH, {"query": "lantern", "sessionId": sid, "cursor": inside.cursor})
    assert more.items[0].seq > seqs[-1] and "turn 10:" in more.items[0].snippet

    await err(client, SESSION_SEARCH, {"query": "lantern", "cursor": "not-a-number"}, "bad-request")
    await err(client, SESSION_SEARCH, {"query": "lantern", "limit": 21}, "bad-request")
    await err(client, SESSION_SEARCH, {"query": "lantern", "sessionId": "s-nope"}, "session-not-found")
