"""`session.fork`: inheritance, anchors, fork-unavailable."""

from __future__ import annotations

from typing import Any

from contract.methods import (
    SESSION_CANCEL,
    SESSION_FORK,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_MODELS,
    SESSION_SELECT_MODEL,
)
from tests.api.conftest import Host
from tests.api.support import err, event, ok, page_events, prompt, run_turn
from tests.support.scripted_llm import Reply, ScriptedLlmServer


def dumps(events: list[Any]) -> list[dict[str, Any]]:
    return [e.dump() for e in events]


def split_seed(events: list[Any]) -> tuple[list[Any], Any, list[Any]]:
    """(the history copied into a fork, the `session/end-seed` closing it, what came after)."""
    at = max(i for i, e in enumerate(events) if e.type == "session/end-seed")
    return events[:at], events[at], events[at + 1 :]


async def all_events(client: Any, sid: str) -> list[Any]:
    page = await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 10_000})
    assert page.has_more is False
    return page_events(page)


async def test_fork_child_inherits_cwd_model_parent_and_history(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="parent answer one"), Reply(text="parent answer two"), Reply(text="child answer"))
    client = host.client()
    mux = await host.mux(client)
    hosts = await host.host_stream(client)
    parent = await host.create()
    await run_turn(client, mux, parent, "parent question one")
    await run_turn(client, mux, parent, "parent question two")
    pick = {"sessionId": parent, "provider": "openai-compatible", "model": "model-a"}
    await ok(client, SESSION_SELECT_MODEL, pick)
    other = await host.create(host.data_dir)  # a later choice elsewhere changes the host default
    await ok(
        client,
        SESSION_SELECT_MODEL,
        {"sessionId": other, "provider": "openai-compatible", "model": "model-b"},
    )
    parent_events = await all_events(client, parent)
    anchor = max(e.seq for e in parent_events if e.type == "turn/end")

    child = (await ok(client, SESSION_FORK, {"sessionId": parent})).session_id
    assert child not in (parent, other)
    summaries = {s.session_id: s for s in (await ok(client, SESSION_LIST)).items}
    assert summaries[child].parent_session_id == parent
    assert summaries[child].cwd == str(host.workdir) and summaries[child].blank is False
    assert summaries[child].title == "parent question one (fork)"  # never exactly its parent's
    _, added = await hosts.next(lambda f: f.type == "host/session-added" and f.session_id == child)
    assert (added.parent_session_id, added.cwd, added.blank) == (parent, str(host.workdir), False)

    head, seed, own = split_seed(await all_events(client, child))
    assert dumps(head) == dumps([e for e in parent_events if e.seq <= anchor])
    assert seed.seq == anchor + 1 and seed.data == {}
    fork_title = {"title": "parent question one (fork)", "source": {"kind": "auto"}}
    assert [(e.type, e.seq, e.data) for e in own] == [("session/title", anchor + 2, fork_title)]
    current = (await ok(client, SESSION_MODELS, {"sessionId": child})).current
    assert (current.provider, current.model) == ("openai-compatible", "model-a")
    assert (await ok(client, SESSION_MODELS, {"sessionId": other})).current.model == "model-b"

    events = await run_turn(client, mux, child, "child question")
    assert events[0].seq == anchor + 3  # the child's own log continues after the seed and title
    sent = llm.requests[-1]
    assert sent["model"] == "model-a"
    said = [m.get("content") for m in sent["messages"]]
    assert "parent question one" in said and "parent answer two" in said and said[-1] == "child question"
    assert (await all_events(client, parent)) == parent_events  # the parent is untouched


async def test_fork_at_seq_anchors_on_the_first_turn_end_at_or_after_it(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client = host.client()
    mux = await host.mux(client)
    parent = await host.create()
    await run_turn(client, mux, parent, "one")
    await run_turn(client, mux, parent, "two")
    events = await all_events(client, parent)
    ends = [e.seq for e in events if e.type == "turn/end"]
    for at_seq, anchor in ((0, ends[0]), (ends[0], ends[0]), (ends[0] + 1, ends[1]), (10**6, ends[1])):
        child = (await ok(client, SESSION_FORK, {"sessionId": parent, "atSeq": at_seq})).session_id
        copied = await all_events(client, child)
        head, seed, own = split_seed(copied)
        assert dumps(head) == dumps(events[: anchor + 1]), at_seq
        assert seed.seq == anchor + 1 and seed.data == {}
        # the first turn's auto title (copied or lying past its turn/end) comes along, marked
        expected = [("session/title", anchor + 2, {"title": "one (fork)", "source": {"kind": "auto"}})]
        assert [(e.type, e.seq, e.data) for e in own] == expected, at_seq
        summary = next(s for s in (await ok(client, SESSION_LIST)).items if s.session_id == child)
        assert summary.title == "one (fork)"
    grandchild = (await ok(client, SESSION_FORK, {"sessionId": child})).session_id
    summary = next(s for s in (await ok(client, SESSION_LIST)).items if s.session_id == grandchild)
    assert summary.parent_session_id == child and summary.title == "one (fork) (fork)"
    head, seed, _ = split_seed(await all_events(client, grandchild))
    child_anchor = max(e.seq for e in copied if e.type == "turn/end")
    assert dumps(head) == dumps(copied[: child_anchor + 1]) and seed.seq == child_anchor + 1


async def test_fork_unavailable_without_a_completed_turn(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="will hang", hang_after=1))
    client = host.client()
    mux = await host.mux(client)
    blank = await host.create()
    error = await err(client, SESSION_FORK, {"sessionId": blank}, "fork-unavailable")
    assert error.details == {"sessionId": blank}
    running = await host.create()
    await prompt(client, running, "first turn never ends")
    await mux.next(event("assistant/chunk", running))
    for payload in ({"sessionId": running}, {"sessionId": running, "atSeq": 0}):
        error = await err(client, SESSION_FORK, payload, "fork-unavailable")
        assert error.details == {"sessionId": running}
    await ok(client, SESSION_CANCEL, {"sessionId": running})
    await mux.next(event("turn/end", running))
    # the aborted turn is over: it is a completed (closed) turn to fork from
    assert (await client.call(SESSION_FORK, {"sessionId": running})).result.ok


async def test_fork_inside_an_open_turn_is_unavailable_but_earlier_turns_fork(
    host: Host, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(text="done"), Reply(text="and now a hang", hang_after=1))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "first")
    await prompt(client, sid, "second")
    _, chunk = await mux.next(event("assistant/chunk", sid))
    error = await err(client, SESSION_FORK, {"sessionId": sid, "atSeq": chunk.event.seq}, "fork-unavailable")
    assert error.details == {"sessionId": sid}
    child = (await ok(client, SESSION_FORK, {"sessionId": sid})).session_id
    head, _, _ = split_seed(await all_events(client, child))
    assert [e.data["content"][0]["text"] for e in head if e.type == "user/message"] == ["first"]
    await ok(client, SESSION_CANCEL, {"sessionId": sid})
    await mux.next(event("turn/end", sid))
