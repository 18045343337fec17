"""Crash repair on load (spec 02 "Persistence").

If the log ends inside an open turn, append in order: an error `tool/result` for every tool call
without a result (`TOOL_OUTCOME_UNKNOWN` if its `tool/call` was logged, else `TOOL_NOT_STARTED`),
`step/end` if a step is open, and `turn/end {reason: {kind: "interrupted"}}`. Seqs continue and
every repair event takes the last event's time. The input is only the open turn's events (from
its `turn/start` to the end of the log), so repair costs O(turn).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from contract.events import SessionEvent

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


def tool_error_result(turn: int, step: int, call_id: str, name: str, code: str, text: str) -> dict[str, Any]:
    """The data of an error `tool/result` (also used by the agent for rejected/bad calls)."""
    return {
        "turn": turn,
        "step": step,
        "message": {
            "id": f"msg-{uuid.uuid4().hex}",
            "role": "tool",
            "content": [{"type": "tool-result", "toolCallId": call_id, "content": text, "isError": True}],
            "source": {"kind": "tool", "callId": call_id},
        },
        "error": {"name": name, "code": code},
    }


def needs_repair(open_turn: Sequence[SessionEvent]) -> bool:
    return (
        bool(open_turn)
        and open_turn[0].type == "turn/start"
        and not any(e.type == "turn/end" for e in open_turn)
    )


def repair_events(open_turn: Sequence[SessionEvent]) -> list[SessionEvent]:
    """The events closing an interrupted turn; [] when the turn is not open."""
    if not needs_repair(open_turn):
        return []
    turn = int(open_turn[0].data.get("turn", 0))
    calls: dict[str, _Call] = {}
    open_step: int | None = None
    for event in open_turn:
        data = event.data
        if event.type == "step/start":
            open_step = int(data.get("step", 0))
        elif event.type == "step/end":
            open_step = None
        elif event.type == "assistant/message":
            step = int(data.get("step", 0))
            for block in (data.get("message") or {}).get("content", []):
                if block.get("type") == "tool-call" and block.get("id") not in calls:
                    calls[block["id"]] = _Call(block["id"], str(block.get("name", "")), turn, step)
        elif event.type == "tool/call":
            cid = str(data.get("callId"))
            call = calls.setdefault(
                cid, _Call(cid, str(data.get("name", "")), turn, int(data.get("step", 0)))
            )
            call.logged = True
        elif event.type == "tool/result":
            cid = str(((data.get("message") or {}).get("source") or {}).get("callId"))
            if cid in calls:
                calls[cid].done = True
            else:
                calls[cid] = _Call(cid, "", turn, int(data.get("step", 0)), True, True)
    last = open_turn[-1]
    seq, time = last.seq, last.time
    out: list[SessionEvent] = []

    def add(etype: str, data: dict[str, Any]) -> None:
        nonlocal seq
        seq += 1
        out.append(SessionEvent(type=etype, seq=seq, time=time, data=data))

    for call in calls.values():
        if call.done:
            continue
        code = OUTCOME_UNKNOWN if call.logged else NOT_STARTED
        text = (
            "The host stopped while this tool was running; its outcome is unknown."
            if call.logged
            else "The host stopped before this tool started; it did not run."
        )
        add("tool/result", tool_error_result(call.turn, call.step, call.call_id, call.name, code, text))
    if open_step is not None:
        add("step/end", {"turn": turn, "step": open_step})
    add("turn/end", {"turn": turn, "reason": {"kind": "interrupted"}})
    return out
