"""A closed session's conversation is freed when it closes, by reference counting alone
(docs/decisions/closed-session-memory.md).

The agent of a session is held in reference cycles (callbacks bound to it), so whatever it holds
would otherwise wait for the collector's next full pass: in a host that has run for a while that
is many sessions later, each one's whole transcript kept until then. The collector is switched
off around the delete, so the test fails if only a collection would free it.
"""

from __future__ import annotations

import gc
import weakref

from contract.methods import SESSION_DELETE
from tests.api.conftest import Host
from tests.api.support import ok, run_turn
from tests.support.engine import agent_of
from tests.support.scripted_llm import Reply, ScriptedLlmServer


async def test_a_deleted_sessions_conversation_goes_without_a_collection(
    host: Host, llm: ScriptedLlmServer
) -> None:
    llm.enqueue(Reply(text="first answer"), Reply(text="second answer"))
    client = host.client()
    mux = await host.mux(client)
    sid = await host.create()
    await run_turn(client, mux, sid, "one")
    await run_turn(client, mux, sid, "two")
    surface = weakref.ref(agent_of(host.engine, sid).conversation.surface)
    held = surface()
    assert held is not None and len(held) == 4  # two prompts, two answers
    del held
    gc.collect()
    gc.disable()
    try:
        assert (await ok(client, SESSION_DELETE, {"sessionId": sid})).deleted is True
        assert sid not in host.engine.parts.pool.agents
        assert surface() is None, "the closed session's conversation waits for the collector"
    finally:
        gc.enable()
