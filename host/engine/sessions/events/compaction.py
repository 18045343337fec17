"""Compaction, the inbox splice and subagent events."""

from __future__ import annotations

from dataclasses import replace

from contract.content import ContentBlock, Message, Usage
from contract.events import (
    CompactEnd,
    CompactStart,
    CompactSummary,
    InboxSpliced,
    InboxTarget,
    JobLost,
    ReplaceOp,
    ShadowedRange,
    SubagentDescriptor,
    SubagentSpawned,
    ToolFilter,
)
from host.engine.sessions.events.base import NewEvent
from host.engine.sessions.events.messages import user_message


def compact_start(compaction_id: str, turn: int | None, command_id: str | None) -> NewEvent[CompactStart]:
    data = CompactStart(compaction_id=compaction_id, source_command_id=command_id, turn=turn)
    return NewEvent("compact/start", data)


def compact_summary(
    compaction_id: str,
    command_id: str | None,
    summary: list[ContentBlock],
    shadowed_seqs: list[int],
    shadowed_tokens: int,
    provider: str,
    model: str,
    max_tokens: int | None,
    usage: Usage | None,
    raw_output: list[ContentBlock],
) -> NewEvent[CompactSummary]:
    """`shadowedRange` is (first, last) of `shadowedSeqs`, in surface order."""
    data = CompactSummary(
        compaction_id=compaction_id,
        source_command_id=command_id,
        summary=summary,
        shadowed_range=ShadowedRange(start=shadowed_seqs[0], end=shadowed_seqs[-1]),
        shadowed_seqs=shadowed_seqs,
        shadowed_token_count=shadowed_tokens,
        provider=provider,
        model=model,
        max_tokens=max_tokens,
        usage=usage,
        raw_output=raw_output,
        llm_stream_call=True,
    )
    return NewEvent("compact/summary", data)


def replacement(message: Message, start: int, end: int, shadowed_seqs: list[int]) -> NewEvent[Message]:
    """The `user/message` that takes the place of surface positions `start..end`."""
    op = ReplaceOp(op="replace", start=start, end=end)
    return replace(user_message(message), source_event_seqs=list(shadowed_seqs), surface_op=op)


def job_lost(job_id: str, label: str, started_at: int, detail: str) -> NewEvent[JobLost]:
    return NewEvent("job/lost", JobLost(job_id=job_id, label=label, started_at=started_at, detail=detail))


def compact_end(
    compaction_id: str,
    turn: int | None,
    command_id: str | None,
    error: str | None = None,
    interrupted: bool = False,
) -> NewEvent[CompactEnd]:
    data = CompactEnd(
        compaction_id=compaction_id,
        source_command_id=command_id,
        turn=turn,
        error=error,
        interrupted=True if interrupted else None,
    )
    return NewEvent("compact/end", data)


def inbox_spliced(
    target: InboxTarget, start: int, removed: int, inserted: list[Message], canceled: bool = False
) -> NewEvent[InboxSpliced]:
    data = InboxSpliced(
        target=target,
        start=start,
        removed_count=removed or None,
        inserted=list(inserted),
        outcome="canceled" if canceled else None,
    )
    return NewEvent("agent/inbox/spliced", data)


def subagent_descriptor(
    label: str, agent_provider: str, agent_model: str, persona: str, allow: list[str] | None
) -> NewEvent[SubagentDescriptor]:
    """A `task` child: continuable (its parent may message it again), run in this process."""
    return NewEvent(
        "subagent/descriptor",
        SubagentDescriptor(
            version=2,
            mode="continuable",
            provider="inprocess",
            label=label,
            agent_provider=agent_provider,
            agent_model=agent_model,
            persona=persona,
            tool_filter=ToolFilter(allow=allow) if allow is not None else None,
        ),
    )


def subagent_spawned(
    call_id: str, session_id: str, label: str, agent_preset: str
) -> NewEvent[SubagentSpawned]:
    return NewEvent(
        "subagent/spawned",
        SubagentSpawned(call_id=call_id, session_id=session_id, label=label, agent_preset=agent_preset),
    )
