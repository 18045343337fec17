"""The session events the engine writes: one constructor per event type.

Each constructor builds the contract's data model (`contract/events.py`), so an event's type and
its shape are stated once and its wire JSON is always the model's (camelCase aliases, unset
optionals left out). The journal stamps the seq and the time (`NewEvent.stamp`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from contract._base import to_wire
from contract.approvals import ApprovalOutcome
from contract.commands import CommandDone, CommandOutcome, CommandRun, CommandSource, PlanMode
from contract.content import ContentBlock, Message, MessageSource, StreamChunk, ToolResultBlock, Usage
from contract.events import (
    AbortedBy,
    ApprovalAsked,
    ApprovalDecided,
    ApprovalPolicySet,
    AssistantChunk,
    AssistantMessage,
    CompactEnd,
    CompactStart,
    CompactSummary,
    EndSeed,
    InboxSpliced,
    InboxTarget,
    JobLost,
    PermissionPresetSet,
    ReplaceOp,
    RequestHeader,
    RetryNotice,
    SandboxModeSet,
    SessionEvent,
    SessionTitle,
    ShadowedRange,
    StepMark,
    SubagentDescriptor,
    SubagentSpawned,
    TitleSource,
    TodoItem,
    TodoWrite,
    ToolCall,
    ToolError,
    ToolFilter,
    ToolResult,
    TurnEnd,
    TurnEndReason,
    TurnStart,
    TurnTrigger,
)
from contract.filechange import FileChange, FilesRestored, RestoredFile
from contract.goals import GoalChange
from contract.presets import AgentPresetSelected
from contract.vetoes import HookDialect, HookInvoked, HookResult, PromptBlocked
from host.engine import ids

D = TypeVar("D", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class NewEvent(Generic[D]):
    """An event before the journal gives it a seq and a time."""

    type: str
    data: D
    source_event_seqs: list[int] | None = None
    surface_op: ReplaceOp | None = None
    """Set on a message that replaces part of the surface (compaction); None = append."""

    def stamp(self, seq: int, time: int) -> SessionEvent:
        return SessionEvent(
            type=self.type,
            seq=seq,
            time=time,
            data=to_wire(self.data),
            surface_op=self.surface_op,
            source_event_seqs=self.source_event_seqs,
        )


# ---- turns and steps ---------------------------------------------------------------------------


def turn_start(turn: int, trigger: TurnTrigger) -> NewEvent[TurnStart]:
    return NewEvent("turn/start", TurnStart(turn=turn, trigger=trigger))


def turn_end(turn: int, reason: TurnEndReason) -> NewEvent[TurnEnd]:
    return NewEvent("turn/end", TurnEnd(turn=turn, reason=reason))


def step_start(turn: int, step: int) -> NewEvent[StepMark]:
    return NewEvent("step/start", StepMark(turn=turn, step=step))


def step_end(turn: int, step: int) -> NewEvent[StepMark]:
    return NewEvent("step/end", StepMark(turn=turn, step=step))


def request_header(
    provider: str, model: str, reasoning_effort: str | None, tools: list[str]
) -> NewEvent[RequestHeader]:
    header = RequestHeader(provider=provider, model=model, reasoning_effort=reasoning_effort, tools=tools)
    return NewEvent("request/header", header)


def request_retry(attempt: int, delay_ms: int, reason: str) -> NewEvent[RetryNotice]:
    return NewEvent("request/retry", RetryNotice(attempt=attempt, delay_ms=delay_ms, reason=reason))


# ---- turn end reasons --------------------------------------------------------------------------


def completed() -> TurnEndReason:
    return TurnEndReason(kind="completed")


def max_tokens() -> TurnEndReason:
    return TurnEndReason(kind="max-tokens")


def aborted(by: AbortedBy) -> TurnEndReason:
    return TurnEndReason(kind="aborted", by=by)


def failed(message: str, status: int | None = None) -> TurnEndReason:
    error: dict[str, Any] = {"message": message}
    if status is not None:
        error["status"] = status
    return TurnEndReason(kind="error", error=error)


def interrupted() -> TurnEndReason:
    return TurnEndReason(kind="interrupted")


def blocked() -> TurnEndReason:
    """A prompt gate vetoed the opening prompt, or a goal round went stale (zero steps)."""
    return TurnEndReason(kind="blocked")


def goal_change(change: GoalChange) -> NewEvent[GoalChange]:
    """One accepted goal mutation (a snapshot, or the clear tombstone): log-only."""
    return NewEvent("goal/change", change)


def hook_invoked(
    turn: int,
    point: str,
    dialect: HookDialect,
    handler_id: str,
    matcher: str | None = None,
    command: str | None = None,
) -> NewEvent[HookInvoked]:
    data = HookInvoked(
        turn=turn, point=point, dialect=dialect, matcher=matcher, handler_id=handler_id, command=command
    )
    return NewEvent("hook/invoked", data)


def hook_result(
    turn: int,
    point: str,
    handler_id: str,
    decision: str,
    exit_code: int | None,
    stderr_summary: str | None,
    duration_ms: float,
) -> NewEvent[HookResult]:
    data = HookResult(
        turn=turn,
        point=point,
        handler_id=handler_id,
        decision=decision,
        exit_code=exit_code,
        stderr_summary=stderr_summary,
        duration_ms=duration_ms,
    )
    return NewEvent("hook/result", data)


def prompt_blocked(
    content: list[ContentBlock], source: MessageSource, reason: str
) -> NewEvent[PromptBlocked]:
    return NewEvent("prompt/blocked", PromptBlocked(content=content, source=source, reason=reason))


# ---- messages ----------------------------------------------------------------------------------


def user_message(message: Message) -> NewEvent[Message]:
    return NewEvent("user/message", message)


def steering_message(message: Message) -> NewEvent[Message]:
    return NewEvent("steering/message", message)


def assistant_chunk(turn: int, step: int, chunk: StreamChunk) -> NewEvent[AssistantChunk]:
    return NewEvent("assistant/chunk", AssistantChunk(turn=turn, step=step, chunk=chunk))


def assistant_message(
    turn: int,
    step: int,
    message: Message,
    chunk_seqs: list[int],
    *,
    usage: Usage | None = None,
    interrupted: bool | None = None,
) -> NewEvent[AssistantMessage]:
    """`sourceEventSeqs` are the seqs of the `assistant/chunk`s the message was built from."""
    data = AssistantMessage(turn=turn, step=step, message=message, usage=usage, interrupted=interrupted)
    return NewEvent("assistant/message", data, list(chunk_seqs))


Role = Literal["user", "assistant", "tool"]


def new_message(role: Role, content: list[Any], source: MessageSource) -> Message:
    """A message with a fresh id."""
    return Message(id=ids.message_id(), role=role, content=content, source=source)


# ---- tools and approvals -----------------------------------------------------------------------


def tool_call(turn: int, step: int, call_id: str, name: str, arguments: str) -> NewEvent[ToolCall]:
    call = ToolCall(turn=turn, step=step, call_id=call_id, name=name, arguments=arguments)
    return NewEvent("tool/call", call)


def tool_result(
    turn: int,
    step: int,
    call_id: str,
    text: str,
    error: ToolError | None = None,
    change: FileChange | None = None,
    changes: list[FileChange] | None = None,
) -> NewEvent[ToolResult]:
    """The tool's answer as a `tool` message; an error result also names the tool and a code; a
    file tool's result carries the change it made (the model never sees it)."""
    block = ToolResultBlock(tool_call_id=call_id, content=text, is_error=True if error else None)
    message = new_message("tool", [block], MessageSource(kind="tool", call_id=call_id))
    result = ToolResult(turn=turn, step=step, message=message, error=error, change=change, changes=changes)
    return NewEvent("tool/result", result)


def todo_write(todos: list[TodoItem]) -> NewEvent[TodoWrite]:
    return NewEvent("todo/write", TodoWrite(todos=todos))


def approval_asked(
    approval_id: str, tool_name: str, call_id: str, reason: str, preview: FileChange | None = None
) -> NewEvent[ApprovalAsked]:
    asked = ApprovalAsked(
        id=approval_id, tool_name=tool_name, call_id=call_id, reason=reason, preview=preview
    )
    return NewEvent("approval/asked", asked)


def approval_decided(
    approval_id: str, outcome: ApprovalOutcome, note: str | None = None
) -> NewEvent[ApprovalDecided]:
    return NewEvent("approval/decided", ApprovalDecided(id=approval_id, outcome=outcome, note=note))


# ---- files -------------------------------------------------------------------------------------


def files_restored(
    cause: Literal["revert", "fork", "revert-file", "revert-hunk"],
    turn: int,
    files: list[RestoredFile],
    other: str | None = None,
    error: str | None = None,
) -> NewEvent[FilesRestored]:
    data = FilesRestored(cause=cause, turn=turn, files=files, fork_session_id=other, error=error)
    return NewEvent("files/restored", data)


# ---- session -----------------------------------------------------------------------------------


def session_title(title: str, kind: Literal["user", "auto"]) -> NewEvent[SessionTitle]:
    return NewEvent("session/title", SessionTitle(title=title, source=TitleSource(kind=kind)))


def end_seed() -> NewEvent[EndSeed]:
    return NewEvent("session/end-seed", EndSeed())


# ---- presets and commands ----------------------------------------------------------------------


def agent_preset_selected(agent_preset: str) -> NewEvent[AgentPresetSelected]:
    return NewEvent("agent-preset/selected", AgentPresetSelected(agent_preset=agent_preset))


def command_run(command_id: str, name: str, args: str | None) -> NewEvent[CommandRun]:
    run = CommandRun(command_id=command_id, name=name, args=args, source=CommandSource(kind="user"))
    return NewEvent("command/run", run)


def command_done(
    command_id: str, kind: CommandOutcome, text: str | None, source_event_seq: int | None = None
) -> NewEvent[CommandDone]:
    done = CommandDone(command_id=command_id, kind=kind, text=text, source_event_seq=source_event_seq)
    return NewEvent("command/done", done)


def plan_mode(active: bool) -> NewEvent[PlanMode]:
    return NewEvent("plan/mode", PlanMode(active=active))


# ---- permissions ------------------------------------------------------------------------------


def permission_preset(preset: str) -> NewEvent[PermissionPresetSet]:
    return NewEvent("permission/preset", PermissionPresetSet(preset=preset))


def sandbox_mode(
    mode: str, mechanism: str | None = None, network: bool | None = None
) -> NewEvent[SandboxModeSet]:
    return NewEvent("sandbox/mode", SandboxModeSet(mode=mode, mechanism=mechanism, network=network))


def approval_policy(policy: str) -> NewEvent[ApprovalPolicySet]:
    return NewEvent("approval/policy", ApprovalPolicySet(policy=policy))


# ---- compaction --------------------------------------------------------------------------------


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


# ---- the inbox ---------------------------------------------------------------------------------


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


# ---- subagents ---------------------------------------------------------------------------------


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
