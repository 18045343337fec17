"""History entries `{event, view?}` and the view slot of `session/event` frames, over both
carriers (spec 07 §2; §6 items 16, 19)."""

from __future__ import annotations

import json

from contract.methods import SESSION_HISTORY
from tests.api.conftest import Host
from tests.api.support import event, ok, prompt, raw
from tests.support.scripted_llm import Reply, ScriptedLlmServer


async def test_tool_events_carry_views_in_history_and_live(host: Host, llm: ScriptedLlmServer) -> None:
    (host.workdir / "notes.txt").write_text("one\ntwo\n")
    llm.enqueue(Reply(tool_calls=[("c1", "read_file", '{"path": "notes.txt"}')]), Reply(text="Read it."))
    client = host.client()
    mux = await host.mux()
    sid = await host.create()
    await prompt(client, sid, "read the notes")
    _, live_call = await mux.next(event("tool/call", sid))
    assert live_call.view is not None and live_call.view.view.card == "generic"
    assert live_call.dump()["view"] == {
        "for": "call",
        "view": {
            "card": "generic",
            "title": "Read notes.txt",
            "kind": "read",
            "locations": [{"path": "notes.txt", "line": 1}],
        },
    }
    _, live_result = await mux.next(event("tool/result", sid))
    assert "view" not in live_result.dump()  # read_file has no result presenter here: omitted, not null
    await mux.next(event("turn/end", sid))

    page = await ok(client, SESSION_HISTORY, {"sessionId": sid})
    with_views = [e for e in page.events if e.view is not None]
    assert [e.event.type for e in with_views] == ["tool/call"]
    assert with_views[0].view is not None and with_views[0].view.for_ == "call"
    # on the wire: `{event}` or `{event, view}`, never `view: null`
    body = json.dumps(
        {"type": "client-request", "rpcId": "r", "method": "session.history", "payload": {"sessionId": sid}}
    )
    answer = json.loads(
        (
            await raw(
                client, "POST", "/api/session.history", {"content-type": "application/json"}, body.encode()
            )
        ).body
    )
    entries = answer["result"]["value"]["events"]
    assert all(set(e) in ({"event"}, {"event", "view"}) for e in entries)
    assert [e["event"]["type"] for e in entries if "view" in e] == ["tool/call"]
