"""`/compact` through `command.execute`, over both carriers (docs/architecture.md, "Compaction")."""

from __future__ import annotations

from contract.methods import COMMAND_EXECUTE, COMMAND_LIST
from tests.api.conftest import Host
from tests.api.support import event, ok, run_turn
from tests.support.scripted_llm import Reply, ScriptedLlmServer


async def execute(host: Host, sid: str, line: str) -> str:
    answer = await ok(host.client(), COMMAND_EXECUTE, {"sessionId": sid, "line": line})
    assert answer.matched is True
    return str(answer.command_id)


async def test_compact_summarises_and_the_next_request_carries_the_summary(
    host: Host, llm: ScriptedLlmServer
) -> None:
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    listed = (await ok(client, COMMAND_LIST, {"sessionId": sid})).commands
    assert (
        "compact" in [c.name for c in listed] and next(c for c in listed if c.name == "compact").input is None
    )
    # nothing yet
    command_id = await execute(host, sid, "/compact")
    _, done = await mux.next(event("command/done", sid, commandId=command_id))
    assert done.event.data == {
        "commandId": command_id,
        "kind": "success",
        "text": "No compactable history yet.",
    }
    llm.enqueue(Reply(text="Plums are stone fruits."), Reply(text="Cherries too."))
    await run_turn(client, mux, sid, "tell me about plums")
    await run_turn(client, mux, sid, "and cherries?")
    # wrong usage: an error result, nothing compacted
    bad = await execute(host, sid, "/compact now")
    _, done = await mux.next(event("command/done", sid, commandId=bad))
    assert done.event.data["kind"] == "error" and done.event.data["text"] == "Usage: /compact (no arguments)"
    llm.enqueue(Reply(text="- plums and cherries are stone fruits"))
    command_id = await execute(host, sid, "/compact")
    _, start = await mux.next(event("compact/start", sid))
    assert start.event.data == {
        "compactionId": start.event.data["compactionId"],
        "sourceCommandId": command_id,
        "turn": None,
    }
    _, summary = await mux.next(event("compact/summary", sid))
    _, replacing = await mux.next(event("user/message", sid))
    assert (
        replacing.event.surface_op is not None
        and replacing.event.data["source"]["sourceCommandId"] == command_id
    )
    _, done = await mux.next(event("command/done", sid, commandId=command_id))
    assert done.event.data["kind"] == "success" and done.event.data["sourceEventSeq"] == summary.event.seq
    assert done.event.data["text"].startswith("Compacted 4 history items (~")
    llm.enqueue(Reply(text="Peaches as well."))
    await run_turn(client, mux, sid, "peaches?")
    sent = llm.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "user"]
    assert "plums and cherries are stone fruits" in sent[1]["content"] and sent[2]["content"] == "peaches?"
    assert "tell me about plums" not in str(sent)
