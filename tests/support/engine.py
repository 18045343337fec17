"""Test-side views of a running engine (kept out of the product: nothing there needs them)."""

from __future__ import annotations

import asyncio
import time

from contract.frames import QueuedInboxItem
from host.engine.agent.agent import Agent
from host.engine.agent.pending import PendingTable
from host.engine.engine import Engine


def agent_of(engine: Engine, session_id: str) -> Agent:
    """The attached agent of a session (the test attached it)."""
    agent = engine.parts.pool.agents.get(session_id)
    assert agent is not None, f"{session_id} has no attached agent"
    return agent


def queued(engine: Engine, session_id: str) -> list[QueuedInboxItem]:
    """The session's queued input (empty when no agent is attached)."""
    agent = engine.parts.pool.agents.get(session_id)
    return agent.input.queue_items() if agent is not None else []


def is_quiet(agent: Agent) -> bool:
    """Idle with nothing queued or steered: the loop has nothing left to do (injected context
    waits for the next turn and does not count)."""
    return not (agent.running or agent.turn_open or agent.input.inbox.next_turn or agent.input.has_steering())


async def wait_quiet(agent: Agent, within: float = 30.0) -> None:
    """Until `is_quiet(agent)`; fails the test after `within` seconds."""
    deadline = time.monotonic() + within
    while not is_quiet(agent):
        if time.monotonic() > deadline:
            raise AssertionError(f"agent {agent.session_id} still busy after {within} s")
        await asyncio.sleep(0.005)


def pending_ids(table: PendingTable, session_id: str) -> list[str]:
    """The rpcIds of a session's still-pending approvals and questions."""
    return [rpc_id for rpc_id, _ in table.requests_for(session_id)]
