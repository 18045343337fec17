"""One ACP-driven session: its ordered update queue and the prompt waiting for its turn.

Updates of a session leave in order through one task; a prompt's answer waits until every
update of its turn has been written (docs/decisions.md, "ACP bridge").
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from desktop.acp.updates import UpdateMapper, tool_kind

log = logging.getLogger("desktop.acp")

STOP_REASONS = {
    "completed": "end_turn",
    "max-tokens": "max_tokens",
    "aborted": "cancelled",
    "interrupted": "cancelled",
}
"""HarnessDesk's `turn/end` reasons as ACP stop reasons; `error` becomes a JSON-RPC error."""

FLUSH_BOUND = 30.0
"""Seconds a prompt's answer waits for its updates to be written to a slow editor."""

Sender = Callable[[str, Any], Awaitable[None]]


def iso_time(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).isoformat().replace("+00:00", "Z")


class AcpSession:
    def __init__(self, session_id: str, cwd: str, send: Sender, last_turn: int) -> None:
        self.id = session_id
        self.mapper = UpdateMapper(cwd)
        self._send = send
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write(), name=f"acp-updates-{session_id}")
        self._outcome: asyncio.Future[str] | None = None
        self._last_turn = last_turn
        self._awaited_turn: int | None = None
        self._commands: dict[str, asyncio.Future[str | None]] = {}
        self._finished: dict[str, str | None] = {}
        self.cancelling = False

    # ---- updates -----------------------------------------------------------------------------

    def push(self, update: Any) -> None:
        self._queue.put_nowait(update)

    async def _write(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self._send(self.id, update)
            except Exception as exc:  # the editor is gone or refused it: keep the rest flowing
                log.info("session/update for %s failed: %s", self.id, exc)
            finally:
                self._queue.task_done()

    async def flushed(self) -> None:
        """Until every update pushed so far has been written (bounded)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._queue.join(), FLUSH_BOUND)

    def kind_of(self, tool_name: str) -> str:
        return tool_kind(tool_name)

    def replay(self, events: list[Any]) -> None:
        for event in events:
            self._track_turn(event)
            for update in self.mapper.replay(event):
                self.push(update)

    # ---- live events -------------------------------------------------------------------------

    def on_event(self, event: Any) -> None:
        for update in self.mapper.live(event):
            self.push(update)
        self._track_turn(event)
        if event.type == "command/done":
            command_id = str(event.data.get("commandId", ""))
            failed = event.data.get("kind") == "error"
            result = str(event.data.get("text") or "the command failed") if failed else None
            waiter = self._commands.pop(command_id, None)
            if waiter is None:
                self._finished[command_id] = result  # it settled before its caller asked
            elif not waiter.done():
                waiter.set_result(result)

    def _track_turn(self, event: Any) -> None:
        if event.type == "turn/start":
            turn = int(event.data.get("turn", 0))
            self._last_turn = max(self._last_turn, turn)
            if self._outcome is not None and self._awaited_turn is None:
                self._awaited_turn = turn
        elif event.type == "turn/end" and self._outcome is not None:
            turn = int(event.data.get("turn", -1))
            if self._awaited_turn is not None and turn == self._awaited_turn and not self._outcome.done():
                self._outcome.set_result(_stop_reason(event.data.get("reason") or {}))

    # ---- prompts and commands ----------------------------------------------------------------

    @property
    def prompting(self) -> bool:
        return self._outcome is not None

    def begin_prompt(self) -> asyncio.Future[str]:
        """The stop reason of the next turn that starts after now."""
        self.cancelling = False
        self._awaited_turn = None
        self._outcome = asyncio.get_running_loop().create_future()
        return self._outcome

    def end_prompt(self) -> None:
        self._outcome = None
        self._awaited_turn = None

    def fail(self, reason: str) -> None:
        if self._outcome is not None and not self._outcome.done():
            self._outcome.set_result(f"error: {reason}")

    def command_outcome(self, command_id: str) -> Awaitable[str | None]:
        """None when the command succeeded, else its message (bounded wait)."""
        waiter: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        if command_id in self._finished:
            waiter.set_result(self._finished.pop(command_id))
        else:
            self._commands[command_id] = waiter
        return asyncio.wait_for(waiter, 30)

    async def close(self) -> None:
        self.fail("the session was closed")
        await self.flushed()
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer


def _stop_reason(reason: dict[str, Any]) -> str:
    kind = str(reason.get("kind", "completed"))
    if kind == "error":
        error = reason.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        return f"error: {message or 'the model request failed'}"
    return STOP_REASONS.get(kind, "end_turn")
