"""Crash repair on load (docs/architecture.md, "Crash repair").

If the log ends inside an open turn, append in order: an error `tool/result` for every tool call
without a result (`TOOL_OUTCOME_UNKNOWN` if its `tool/call` was logged, else `TOOL_NOT_STARTED`;
when a store failure cut the turn short while the host kept running, the result the tool did
return is written instead, saying it is saved late and why (`Unsaved`)),
`compact/end {interrupted}` for a compaction still open, `command/done {interrupted}` for a
command still running, `step/end` if a step is open, and `turn/end {reason: {kind:
"interrupted"}}`. A compaction or command open outside a turn (`/compact`) is closed the same
way. Seqs continue and every repair event takes the last event's time. The input is only the
open turn's events (from its `turn/start` to the end of the log) and the newest bracket event of
each kind, so repair costs O(turn).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from contract.commands import CommandRun
from contract.content import ToolCallBlock, ToolResultBlock
from contract.events import (
    AssistantMessage,
    CompactStart,
    SessionEvent,
    StepMark,
    ToolCall,
    ToolError,
    ToolResult,
    TurnEndReason,
    TurnStart,
)
from host.engine.sessions import events
from host.engine.sessions.events import NewEvent
from host.engine.store import SessionHeader, Store

Unsaved = dict[str, ToolResult | None]
"""A turn a store failure cut short (the host kept running): per call that had started, the
result it returned (which the failed write lost), or None when it was still running (the failure
stopped it). What the repair then says instead of "the host stopped"."""

OUTCOME_UNKNOWN = "TOOL_OUTCOME_UNKNOWN"
NOT_STARTED = "TOOL_NOT_STARTED"
COMPACTION_INTERRUPTED = "interrupted: the app closed before the summary was saved"
COMMAND_INTERRUPTED = "Interrupted: the app closed before the command finished."


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


@dataclass(frozen=True)
class Brackets:
    """The newest `compact/start|end` and `command/run|done` of a session (None: none logged)."""

    compaction: SessionEvent | None = None
    command: SessionEvent | None = None

    @property
    def open(self) -> bool:
        return bool(
            (self.compaction is not None and self.compaction.type == "compact/start")
            or (self.command is not None and self.command.type == "command/run")
        )


async def crash_repair(
    store: Store, header: SessionHeader, reason: TurnEndReason | None, unsaved: Unsaved | None = None
) -> list[SessionEvent]:
    """The events closing whatever the log of a session without an agent left open."""
    sid = header.id
    if header.last_seq < 0:
        return []
    brackets = Brackets(
        await store.latest_of_types(sid, ("compact/start", "compact/end")),
        await store.latest_of_types(sid, ("command/run", "command/done")),
    )
    opened: Sequence[SessionEvent] = []
    if header.open_turn_start is not None:
        opened = await store.events(sid, header.open_turn_start)
    elif brackets.open:
        opened = await store.events(sid, header.last_seq)
    return repair_events(opened, reason, brackets, unsaved)


def repair_events(
    tail: Sequence[SessionEvent],
    reason: TurnEndReason | None = None,
    brackets: Brackets | None = None,
    unsaved: Unsaved | None = None,
) -> list[SessionEvent]:
    """The events closing an interrupted turn, compaction or command; [] when none is open.

    `tail` is the open turn's events (or, with no turn open, at least the log's last event).
    `reason` replaces `{kind: "interrupted"}` when the host knows why the turn stopped (a store
    failure ends it as `{kind: "error", error: {message}}`)."""
    brackets = brackets or Brackets()
    turn_open = needs_repair(tail)
    if not tail or not (turn_open or brackets.open):
        return []
    last = tail[-1]
    seq, time = last.seq, last.time
    out: list[SessionEvent] = []

    def add(new: NewEvent[Any]) -> None:
        nonlocal seq
        seq += 1
        out.append(new.stamp(seq, time))

    if turn_open:
        _close_calls(tail, add, reason, unsaved or {})
    bracket = brackets.compaction
    if bracket is not None and bracket.type == "compact/start":
        start = CompactStart.model_validate(bracket.data)
        add(
            events.compact_end(
                start.compaction_id,
                start.turn,
                start.source_command_id,
                COMPACTION_INTERRUPTED,
                interrupted=True,
            )
        )
    command = brackets.command
    if command is not None and command.type == "command/run":
        run = CommandRun.model_validate(command.data)
        add(events.command_done(run.command_id, "interrupted", COMMAND_INTERRUPTED))
    if turn_open:
        turn = TurnStart.model_validate(tail[0].data).turn
        open_step = _open_step(tail)
        if open_step is not None:
            add(events.step_end(turn, open_step))
        add(events.turn_end(turn, reason or events.interrupted()))
    return out


def _open_step(open_turn: Sequence[SessionEvent]) -> int | None:
    open_step: int | None = None
    for event in open_turn:
        if event.type == "step/start":
            open_step = StepMark.model_validate(event.data).step
        elif event.type == "step/end":
            open_step = None
    return open_step


def _close_calls(
    open_turn: Sequence[SessionEvent],
    add: Callable[[NewEvent[Any]], None],
    reason: TurnEndReason | None,
    unsaved: Unsaved,
) -> None:
    """An error `tool/result` for every call of the open turn without one (or, after a store
    failure, the result the tool returned)."""
    turn = TurnStart.model_validate(open_turn[0].data).turn
    calls: dict[str, _Call] = {}
    for event in open_turn:
        if event.type not in ("assistant/message", "tool/call", "tool/result"):
            continue
        data = event.typed_data()
        if isinstance(data, AssistantMessage):
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
    why = str((reason.error or {}).get("message") or "") if reason is not None else ""
    for call in calls.values():
        if call.done:
            continue
        if call.call_id in unsaved and why:
            add(_saved_late(call, unsaved[call.call_id], why))
            continue
        code = OUTCOME_UNKNOWN if call.logged else NOT_STARTED
        text = (
            "The host stopped while this tool was running; its outcome is unknown."
            if call.logged
            else "The host stopped before this tool started; it did not run."
        )
        error = ToolError(name=call.name, code=code)
        add(events.tool_result(call.turn, call.step, call.call_id, text, error))


def _saved_late(call: _Call, result: ToolResult | None, why: str) -> NewEvent[ToolResult]:
    """The result of a call whose own could not be saved when it came (a full disk): the host
    kept running, so what the tool did is known and is said, with the failure that held it back
    and — when its snapshots failed too — that its changes cannot be reverted."""
    if result is None:
        text = (
            f"This tool was stopped part way: the host could not save to its disk ({why}) and kept"
            " running without it. It had started; what it did before it stopped was not recorded."
        )
        return events.tool_result(
            call.turn, call.step, call.call_id, text, ToolError(name=call.name, code=OUTCOME_UNKNOWN)
        )
    block = result.message.content[0]
    content = block.content if isinstance(block, ToolResultBlock) else ""
    note = (
        "[HarnessDesk: this result is saved late: the host could not save to its disk when it came"
        f" ({why}); the host kept running and the tool ran to its end."
    )
    if result.snapshot_error:
        note += (
            f" Its snapshot could not be taken ({result.snapshot_error}): what it changed in the"
            " folder is not recorded and cannot be reverted."
        )
    note += "]"
    text = f"{content}\n\n{note}" if content else note
    return events.tool_result(
        result.turn,
        result.step,
        call.call_id,
        text,
        result.error,
        result.change,
        result.changes,
        result.snapshot_error,
    )
