"""Turn, step and request events, the reasons a turn ends, and the goal and hook events."""

from __future__ import annotations

from typing import Any

from contract.content import ContentBlock, MessageSource
from contract.events import (
    AbortedBy,
    RequestHeader,
    RetryNotice,
    StepMark,
    TurnEnd,
    TurnEndReason,
    TurnStart,
    TurnTrigger,
)
from contract.goals import GoalChange
from contract.vetoes import HookDialect, HookInvoked, HookResult, PromptBlocked
from host.engine.sessions.events.base import NewEvent


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
