"""A long session written straight into a data dir's store (no model, no turns run): what the
window benchmarks and the long-transcript browser test open (docs/decisions.md, "Long
transcripts in the window").

Each turn is four messages: the question, an answer with a code block and a tool call, the
tool's result (an edit with a unified diff) and a closing answer. One early turn carries a
marker word so a search hits a message thousands of messages above the tail.
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.events import SessionEvent
from host.api import open_host
from host.engine.store import SessionHeader

MESSAGES_PER_TURN = 4
EVENTS_PER_TURN = 11
MARKER = "quetzalcoatl-marker"
"""The word only the marked turn's question holds (a search for it finds one message)."""


@dataclass(frozen=True)
class LongSession:
    session_id: str
    messages: int
    events: int
    marker_seq: int
    """seq of the `user/message` that holds MARKER."""


def turn_events(base: int, turn: int, marked: bool) -> list[SessionEvent]:
    """One completed turn (EVENTS_PER_TURN events, MESSAGES_PER_TURN messages) from seq `base`."""

    def ev(offset: int, etype: str, data: dict[str, Any]) -> SessionEvent:
        return SessionEvent(type=etype, seq=base + offset, time=1_700_000_000_000 + base, data=data)

    call_id = f"call-{turn}"
    path = f"src/module_{turn % 97}.py"
    question = f"Turn {turn}: rename the helper in {path} and show me the result."
    if marked:
        question += f" {MARKER}"
    code = f"```python\ndef helper_{turn}(value: int) -> int:\n    return value * {turn % 13 + 2}\n```"
    args = json.dumps({"path": path, "old": f"old_helper_{turn}", "new": f"helper_{turn}"})
    diff = (
        f"--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n import os\n"
        f"-def old_helper_{turn}(value):\n+def helper_{turn}(value):\n     return value\n"
    )
    user = {
        "id": f"u{turn}",
        "role": "user",
        "content": [{"type": "text", "text": question}],
        "source": {"kind": "user", "rpcId": f"r{turn}"},
    }
    first = {
        "id": f"a{turn}",
        "role": "assistant",
        "content": [
            {"type": "text", "text": f"I will rename it. The new helper reads:\n\n{code}\n"},
            {"type": "tool-call", "id": call_id, "name": "edit", "arguments": args},
        ],
        "source": {"kind": "model", "provider": "local", "model": "m"},
    }
    result = {
        "id": f"tr{turn}",
        "role": "tool",
        "content": [{"type": "tool-result", "toolCallId": call_id, "content": f"Edited {path}"}],
        "source": {"kind": "tool", "callId": call_id},
    }
    change = {"path": path, "diff": diff, "added": 1, "removed": 1}
    closing = {
        "id": f"b{turn}",
        "role": "assistant",
        "content": [{"type": "text", "text": f"Done: `helper_{turn}` is in place in **{path}**."}],
        "source": {"kind": "model", "provider": "local", "model": "m"},
    }
    return [
        ev(0, "turn/start", {"turn": turn, "trigger": "user"}),
        ev(1, "step/start", {"turn": turn, "step": 0}),
        ev(2, "user/message", user),
        ev(3, "assistant/message", {"turn": turn, "step": 0, "message": first}),
        ev(4, "tool/call", {"turn": turn, "step": 0, "callId": call_id, "name": "edit", "arguments": args}),
        ev(5, "tool/result", {"turn": turn, "step": 0, "message": result, "change": change}),
        ev(6, "step/end", {"turn": turn, "step": 0}),
        ev(7, "step/start", {"turn": turn, "step": 1}),
        ev(8, "assistant/message", {"turn": turn, "step": 1, "message": closing}),
        ev(9, "step/end", {"turn": turn, "step": 1}),
        ev(10, "turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
    ]


async def _seed(data_dir: Path, session_id: str, turns: int, marked_turn: int, cwd: str) -> None:
    runtime = await open_host(data_dir, dev_validate=False)
    try:
        store = runtime.engine.parts.store
        now = int(time.time() * 1000)
        store.register(
            SessionHeader(
                id=session_id,
                created_at=now,
                cwd=cwd,
                title=f"Long session ({session_id})",
                title_source="user",
                blank=False,
                last_activity=now,
            )
        )
        batch: list[SessionEvent] = []
        for turn in range(turns):
            batch += turn_events(turn * EVENTS_PER_TURN, turn, turn == marked_turn)
            if len(batch) >= 5000:
                store.append(session_id, batch)
                batch = []
        if batch:
            store.append(session_id, batch)
    finally:
        await runtime.close()


def seed_long_session(
    data_dir: Path, session_id: str = "long", messages: int = 10_000, marked_turn: int = 3, cwd: str = "/tmp"
) -> LongSession:
    """Write a completed session of `messages` messages into the store under `data_dir` (the
    host must not be running on it); its MARKER sits in turn `marked_turn`."""
    turns = max(1, messages // MESSAGES_PER_TURN)
    # a thread of its own: the caller may already run an event loop (Playwright's sync API does)
    with ThreadPoolExecutor(1) as worker:
        worker.submit(asyncio.run, _seed(data_dir, session_id, turns, marked_turn, cwd)).result()
    return LongSession(
        session_id, turns * MESSAGES_PER_TURN, turns * EVENTS_PER_TURN, marked_turn * EVENTS_PER_TURN + 2
    )
