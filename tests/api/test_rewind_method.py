"""`session.rewind` over the wire (docs/decisions.md, "Rewind in place"): bad input is a
`bad-request` that changes nothing, a seq that is not a person's message is `rewind-unavailable`
with its details, and a rewind answers `{text, restoredFiles, conflicts}`, streams
`session/rewound {atSeq, restoredFiles}` and leaves the rewound turn out of the next request."""

from __future__ import annotations

from typing import Any

from contract.methods import SESSION_HISTORY, SESSION_REWIND
from tests.api.conftest import Host
from tests.api.support import err, event, ok, page_events, run_turn
from tests.support.scripted_llm import Reply, ScriptedLlmServer


async def all_events(client: Any, sid: str) -> list[Any]:
    page = await ok(client, SESSION_HISTORY, {"sessionId": sid, "maxMessages": 10_000})
    return page_events(page)


async def test_rewind_over_the_wire(host: Host, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="answer one"), Reply(text="answer two"), Reply(text="answer three"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "question one")
    await run_turn(client, mux, sid, "question two")
    before = await all_events(client, sid)
    second = next(
        e.seq
        for e in before
        if e.type == "user/message" and e.data["content"][0].get("text") == "question two"
    )

    for bad in (
        {"sessionId": sid, "atSeq": -1},
        {"sessionId": sid, "atSeq": "x"},
        {"sessionId": sid},
        {"sessionId": "s-nope", "atSeq": second, "extra": 1},
    ):
        await err(client, SESSION_REWIND, bad, "bad-request")
    not_a_message = second + 1  # the turn's start, not the person's message
    error = await err(
        client, SESSION_REWIND, {"sessionId": sid, "atSeq": not_a_message}, "rewind-unavailable"
    )
    assert error.details["sessionId"] == sid and error.details["reason"]
    assert await all_events(client, sid) == before  # nothing changed

    value = await ok(client, SESSION_REWIND, {"sessionId": sid, "atSeq": second, "restoreFiles": False})
    assert (value.text, value.restored_files, value.conflicts) == ("question two", [], [])
    _, rewound = await mux.next(event("session/rewound", sid))
    assert rewound.event.data == {"atSeq": second, "restoredFiles": []}

    await run_turn(client, mux, sid, "question two, again")
    said = [m.get("content") for m in llm.requests[-1]["messages"]]
    assert "question one" in said and "answer one" in said
    assert "question two" not in said and "answer two" not in said and said[-1] == "question two, again"
    # the rewound turn stays in the log
    assert [e.seq for e in await all_events(client, sid)][: len(before)] == [e.seq for e in before]
