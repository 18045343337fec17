"""Crash repair on load (docs/architecture.md, "Crash repair").

If the log ends inside an open turn, append in order: an error `tool/result` for every tool call
without a result (`TOOL_OUTCOME_UNKNOWN` if its `tool/call` was logged, else `TOOL_NOT_STARTED`),
`step/end` if a step is open, and `turn/end {reason: {kind: "interrupted"}}`. Seqs continue and
every repair event takes the last event's time. The input is only the open turn's events (from
its `turn/start` to the end of the log), so repair costs O(turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from contract.content import ToolCallBlock
from contract.events import (
    AssistantMessage,
    SessionEvent,
    ToolCall,
    ToolError,
    ToolResult,
    TurnEndReason,
    TurnStart,
)
from host.engine import events
from host.engine.events import NewEvent

OUTCOME_UNKNOWN = "TOOL_OUTCOME_UNKNOWN"
NOT_STARTED = "TOOL_NOT_STARTED"


@dataclass
class _Call:
    call_id: str
    name: str
    turn: int
    step: int
    logged: bool = False
    done: bool = False


def needs_repair(open_turn: Sequence[SessionEvent]) -> bool:
    return (
        bool(open_turn)
        and open_turn[0].type == "turn/start"
        and not any(e.type == "turn/end" for e in open_turn)
    )


def repair_events(
    open_turn: Sequence[SessionEvent], reason: TurnEndReason | None = None
) -> list[SessionEvent]:
    """The events closing an interrupted turn; [] when the turn is not open.

    `reason` replaces `{kind: "interrupted"}` when the host knows why the turn stopped (a store
    failure ends it as `{kind: "error", error: {message}}`)."""
    if not needs_repair(open_turn):
        return []
    turn = TurnStart.model_validate(open_turn[0].data).turn
    calls: dict[str, _Call] = {}
    open_step: int | None = None
    for event in open_turn:
        data = event.typed_data()
        if event.type == "step/start":
            open_step = data.step
        elif event.type == "step/end":
            open_step = None
        elif isinstance(data, AssistantMessage):
            for block in data.message.content:
                if isinstance(block, ToolCallBlock) and block.id not in calls:
                    calls[block.id] = _Call(block.id, block.name, turn, data.step)
        elif isinstance(data, ToolCall):
            call = calls.setdefault(data.call_id, _Call(data.call_id, data.name, turn, data.step))
            call.logged = True
        elif isinstance(data, ToolResult):
            cid = str(data.message.source.call_id)
            if cid in calls:
                calls[cid].done = True
            else:
                calls[cid] = _Call(cid, "", turn, data.step, True, True)
    last = open_turn[-1]
    seq, time = last.seq, last.time
    out: list[SessionEvent] = []

    def add(new: NewEvent[Any]) -> None:
        nonlocal seq
        seq += 1
        out.append(new.stamp(seq, time))

    for call in calls.values():
        if call.done:
            continue
        code = OUTCOME_UNKNOWN if call.logged else NOT_STARTED
        text = (
            "The host stopped while this tool was running; its outcome is unknown."
            if call.logged
            else "The host stopped before this tool started; it did not run."
        )
        error = ToolError(name=call.name, code=code)
        add(events.tool_result(call.turn, call.step, call.call_id, text, error))
    if open_step is not None:
        add(events.step_end(turn, open_step))
    add(events.turn_end(turn, reason or events.interrupted()))
    return out
