"""`session.history` answers spliced from the stored JSON are, byte for byte, the answers the
validate-and-dump path gives (docs/decisions.md, "History answers spliced"), over both carriers:
pages of a real agent session (tool calls with views), a cold session repaired in memory (its
repair events are never stored), a result whose call is on an earlier page, text outside ASCII."""

from __future__ import annotations

import json
import time
from typing import Any

from contract._base import to_wire
from contract.events import SessionEvent
from contract.methods import SESSION_HISTORY
from contract.sessions import HistoryValue
from host.engine.store import SessionHeader
from host.fetch.inbound import json_bytes
from tests.api.conftest import Host
from tests.api.support import event, ok, prompt, raw
from tests.support.scripted_llm import Reply, ScriptedLlmServer


async def expected_body(host: Host, rpc_id: str, payload: dict[str, Any]) -> bytes:
    """The answer as the host gave it before splicing: every event validated into a model, the
    entries built, the value dumped and the envelope encoded."""
    events, has_more, projections = await host.engine.sessions.history(
        payload["sessionId"], payload.get("beforeSeq"), payload.get("maxMessages", 50)
    )
    value = HistoryValue(
        events=host.engine.sessions.history_entries(events), has_more=has_more, projections=projections
    )
    envelope = {"type": "server-response", "rpcId": rpc_id, "result": {"ok": True, "value": to_wire(value)}}
    return json_bytes(envelope)


async def history_body(host: Host, payload: dict[str, Any]) -> tuple[bytes, bytes]:
    """(the body `session.history` answered with, the body the old path gives)."""
    rpc_id = f"r-{time.monotonic_ns()}"
    request = {"type": "client-request", "rpcId": rpc_id, "method": "session.history", "payload": payload}
    answer = await raw(
        host.client(),
        "POST",
        "/api/session.history",
        {"content-type": "application/json"},
        json.dumps(request).encode(),
    )
    assert answer.status == 200, answer.body[:300]
    return answer.body, await expected_body(host, rpc_id, payload)


async def test_pages_of_a_real_session_are_the_same_bytes(host: Host, llm: ScriptedLlmServer) -> None:
    (host.workdir / "notes.txt").write_text("één\ntwo ✓ 𝄞\n")
    llm.enqueue(
        Reply(
            tool_calls=[("c1", "read_file", '{"path": "notes.txt"}'), ("c2", "grep", '{"pattern": "two"}')]
        ),
        Reply(text="Read it: één, two ✓ 𝄞 — done.\n```python\nprint('x')\n```"),
        Reply(text="second answer"),
    )
    client = host.client()
    mux = await host.mux()
    sid = await host.create()
    await prompt(client, sid, "read the notes, please ✓")
    await mux.next(event("turn/end", sid))
    await prompt(client, sid, "again")
    await mux.next(event("turn/end", sid))

    whole, old_whole = await history_body(host, {"sessionId": sid, "maxMessages": 10_000})
    assert whole == old_whole
    value = json.loads(whole)["result"]["value"]
    assert value["hasMore"] is False and "projections" in value
    entries = value["events"]
    assert [e["event"]["seq"] for e in entries] == list(range(len(entries)))
    assert sum(1 for e in entries if "view" in e) == 2  # both calls carry a view
    assert "één, two ✓ 𝄞" in whole.decode()

    tail, old_tail = await history_body(host, {"sessionId": sid, "maxMessages": 1})
    assert tail == old_tail and json.loads(tail)["result"]["value"]["hasMore"] is True
    before = json.loads(tail)["result"]["value"]["events"][0]["event"]["seq"]
    for size in (1, 2, 3):  # older pages: no projections; a result may miss its call's page
        page, old_page = await history_body(
            host, {"sessionId": sid, "beforeSeq": before, "maxMessages": size}
        )
        assert page == old_page
        assert "projections" not in json.loads(page)["result"]["value"]


def stored(seq: int, etype: str, data: dict[str, Any], **extra: Any) -> SessionEvent:
    return SessionEvent(type=etype, seq=seq, time=1_700_000_000_000 + seq, data=data, **extra)


async def test_a_cold_crashed_session_with_a_bash_result_view_is_the_same_bytes(host: Host) -> None:
    store = host.engine.parts.store
    store.register(SessionHeader(id="cold", created_at=1_700_000_000_000, cwd=str(host.workdir), title="Été"))
    result = {
        "id": "t0",
        "role": "tool",
        "content": [{"type": "tool-result", "toolCallId": "b1", "content": "exit 0\nhello\n"}],
        "source": {"kind": "tool", "callId": "b1"},
    }
    user = {
        "id": "u0",
        "role": "user",
        "content": [{"type": "text", "text": "run it"}],
        "source": {"kind": "user"},
    }
    store.append(
        "cold",
        [
            stored(0, "turn/start", {"turn": 0, "trigger": "user"}),
            stored(1, "step/start", {"turn": 0, "step": 0}),
            stored(2, "user/message", user, surface_op="append"),
            stored(
                3,
                "tool/call",
                {
                    "turn": 0,
                    "step": 0,
                    "callId": "b1",
                    "name": "bash",
                    "arguments": '{"command": "echo hello"}',
                },
            ),
            stored(4, "tool/result", {"turn": 0, "step": 0, "message": result}, surface_op="append"),
        ],
    )
    await store.flush()
    body, old = await history_body(host, {"sessionId": "cold"})
    assert body == old
    value = json.loads(body)["result"]["value"]
    types = [e["event"]["type"] for e in value["events"]]
    assert types[:5] == ["turn/start", "step/start", "user/message", "tool/call", "tool/result"]
    assert types[-1] == "turn/end" and len(types) > 5  # the repair, in the answer, not in the store
    assert value["events"][4]["view"]["view"]["card"] == "terminal"
    assert value["projections"]["values"]["title"] == "Été"
    assert value["projections"]["asOfSeq"] == value["events"][-1]["event"]["seq"]
    assert (await ok(host.client(), SESSION_HISTORY, {"sessionId": "cold"})).events[
        -1
    ].event.type == "turn/end"
    page = await store.page("cold", None, 10_000)
    assert [seq for seq, _, _ in page.rows] == [0, 1, 2, 3, 4]  # reading wrote nothing
