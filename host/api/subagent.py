"""`subagent.*`: a parent session's child sessions (docs/architecture.md, "Subagents")."""

from __future__ import annotations

from contract import subagents as a
from contract.methods import SUBAGENT_HISTORY, SUBAGENT_INTERRUPT, SUBAGENT_LIST, SUBAGENT_PROMPT
from contract.sessions import Accepted, HistoryValue
from host.api.registry import implements
from host.engine.engine import Engine


@implements(SUBAGENT_LIST)
async def list_subagents(engine: Engine, p: a.SubagentListRequest) -> a.SubagentListValue:
    entries, available = await engine.subagents.list_subagents(p.parent_session_id)
    return a.SubagentListValue(entries=entries, parent_available=available)


@implements(SUBAGENT_HISTORY)
async def history(engine: Engine, p: a.SubagentHistoryRequest) -> HistoryValue:
    events, has_more, projections = await engine.subagents.subagent_history(
        p.parent_session_id, p.child_session_id, p.mode, p.before_seq, p.max_messages
    )
    return HistoryValue(
        events=engine.sessions.history_entries(events), has_more=has_more, projections=projections
    )


@implements(SUBAGENT_PROMPT)
async def prompt(engine: Engine, p: a.SubagentPromptRequest, rpc_id: str) -> a.SubagentPromptValue:
    message_id = await engine.subagents.prompt_subagent(
        p.parent_session_id, p.child_session_id, p.content, rpc_id, p.client_time_zone, p.attach
    )
    return a.SubagentPromptValue(message_id=message_id)


@implements(SUBAGENT_INTERRUPT)
async def interrupt(engine: Engine, p: a.SubagentInterruptRequest) -> Accepted:
    await engine.subagents.interrupt_subagent(p.parent_session_id, p.child_session_id)
    return Accepted()
