"""Searches on their own lane (docs/decisions/search-lane.md), through both carriers: a history
page and the session list answer while searches hold every search connection, and a search
whose caller went away (the find bar asked again) is never run."""

from __future__ import annotations

import asyncio
import threading

from contract.methods import SESSION_HISTORY, SESSION_LIST, SESSION_SEARCH
from host.engine.store.sqlite_store import SEARCH_THREADS, SqliteStore
from tests.api.conftest import Host
from tests.api.support import ok, page_events, run_turn
from tests.engine.test_store_reads import BOUND, endless, until
from tests.support.scripted_llm import Reply, ScriptedLlmServer


async def test_history_and_list_answer_while_searches_run_and_a_superseded_search_never_runs(
    host: Host, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(text="The needle is in the second drawer."))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "where is the needle?")
    store = host.engine.parts.store
    assert isinstance(store, SqliteStore)
    lane = store._searcher
    entered = [threading.Event() for _ in range(SEARCH_THREADS)]
    held = [asyncio.ensure_future(lane.call(endless(e))) for e in entered]  # long searches
    try:
        for e in entered:
            assert await asyncio.to_thread(e.wait, BOUND)
        page = await asyncio.wait_for(ok(client, SESSION_HISTORY, {"sessionId": sid}), BOUND)
        assert "user/message" in {e.type for e in page_events(page)}
        listed = await asyncio.wait_for(ok(client, SESSION_LIST, {}), BOUND)
        assert [s.session_id for s in listed.items] == [sid]
        # the find bar asks, then asks again (a keystroke): the first caller goes away
        first = asyncio.ensure_future(client.call(SESSION_SEARCH, {"query": "drawer", "sessionId": sid}))
        await until(lambda: lane._queue.qsize() == 1)
        queued = lane._queue.queue[0]
        assert queued is not None
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        await until(lambda: queued.abandoned)  # the host saw the caller leave
        second = asyncio.ensure_future(client.call(SESSION_SEARCH, {"query": "drawer", "sessionId": sid}))
    finally:
        for task in held:
            task.cancel()
        await asyncio.gather(*held, return_exceptions=True)
    answer = await asyncio.wait_for(second, BOUND)
    assert answer.result.ok, answer.result
    assert answer.result.value.total == 1
    assert [hit.snippet for hit in answer.result.value.items] == ["The needle is in the second drawer."]
    await until(lambda: (lane.interrupted, lane.skipped) == (SEARCH_THREADS, 1))  # the first never ran
