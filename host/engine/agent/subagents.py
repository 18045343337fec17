"""What the engine remembers about subagents while it runs (docs/architecture.md, "Subagents"):
who is whose child (to show a child's approvals and questions in its parent), the turns a `task`
call waits for, each parent's slots (at most 3 children at once), and the answers of turns nobody
waits for, which reach the parent as context."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

from contract.approvals import AskedBy
from contract.content import Message, TextBlock
from contract.events import SubagentDescriptor, TurnEndReason
from host.engine.agent.agent import Agent
from host.engine.store import SessionHeader
from host.engine.tools.base import ToolOutput

log = logging.getLogger(__name__)

MAX_CHILDREN_AT_ONCE = 3
"""Per parent session: the `task` calls of a step beyond this wait for a free slot."""
CANCEL_WAIT_S = 10.0
"""How long a cancelled `task` call waits for its child's turn to close (it takes milliseconds)."""


@dataclass(frozen=True)
class Lineage:
    parent: str
    label: str


@dataclass(frozen=True)
class Outcome:
    """How a child's turn ended and its final answer's text."""

    reason: TurnEndReason
    text: str


def answer_text(message: Message | None) -> str:
    if message is None:
        return ""
    return "".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()


def task_output(outcome: Outcome) -> ToolOutput:
    """The `task` tool's result: the child's final answer, or why there is none."""
    text, kind = outcome.text, outcome.reason.kind
    if kind == "completed":
        return ToolOutput(text or "(The subagent finished without a final answer.)")
    if kind == "max-tokens":
        return ToolOutput(f"{text}\n\n(The subagent's answer was cut off at its length limit.)")
    partial = f"\n\nIts last words:\n{text}" if text else ""
    if kind == "aborted":
        return ToolOutput(f"The subagent was stopped before it finished.{partial}", True, "SUBAGENT_STOPPED")
    error = outcome.reason.error
    why = error.get("message") if isinstance(error, dict) else None
    return ToolOutput(f"The subagent failed: {why or kind}.{partial}", True, "SUBAGENT_FAILED")


def delivery_text(label: str, child_id: str, outcome: Outcome) -> str:
    """A child's answer to input its parent's person sent it, as context for the parent."""
    result = task_output(outcome)
    return f'<subagent-answer label="{label}" session="{child_id}">\n{result.content}\n</subagent-answer>'


class SubagentTracker:
    def __init__(self) -> None:
        self.lineage: dict[str, Lineage] = {}
        self.descriptors: dict[str, SubagentDescriptor] = {}
        """Children started by this host, before their descriptor is in their log."""
        self._waiters: dict[str, asyncio.Future[Outcome]] = {}
        """The id of the message that opens a child's turn → the `task` call waiting for it."""
        self._slots: dict[str, asyncio.Semaphore] = {}

    # ---- lineage ---------------------------------------------------------------------------

    def loaded(self, header: SessionHeader) -> None:
        """A session loads: remember a child's parent (its header names it)."""
        if header.origin == "subagent" and header.parent_session:
            self.lineage[header.id] = Lineage(header.parent_session, header.title or header.id)

    def route(self, session_id: str) -> tuple[str, AskedBy] | None:
        """A child's requests are shown in its topmost parent, labelled with the child."""
        own = self.lineage.get(session_id)
        if own is None:
            return None
        shown, seen = own.parent, {session_id}
        while shown in self.lineage and shown not in seen:
            seen.add(shown)
            shown = self.lineage[shown].parent
        return shown, AskedBy(session_id=session_id, label=own.label)

    # ---- one `task` call ----------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def slot(self, parent_id: str) -> AsyncIterator[None]:
        slots = self._slots.setdefault(parent_id, asyncio.Semaphore(MAX_CHILDREN_AT_ONCE))
        async with slots:
            yield

    async def wait(self, child: Agent, message_id: str) -> Outcome:
        """The outcome of the turn `message_id` opens. Cancelling the caller cancels the child
        (and waits, bounded, for its turn to close first, so the child's log ends before the
        parent's)."""
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self._waiters[message_id] = future
        closed: asyncio.Future[None] = asyncio.ensure_future(child.closed())
        try:
            await asyncio.wait((future, closed), return_when=asyncio.FIRST_COMPLETED)
            if future.done():
                return future.result()
            return Outcome(TurnEndReason(kind="aborted", by="disposed"), "")
        except asyncio.CancelledError:
            working = child.turn_open or child.running
            child.cancel("parent", clear_queue=True)
            if working and not future.done():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(future), CANCEL_WAIT_S)
            raise
        finally:
            closed.cancel()
            self._waiters.pop(message_id, None)

    def turn_ended(
        self, agent: Agent, first: Message, reason: TurnEndReason, answer: Message | None
    ) -> tuple[str, str] | None:
        """Every agent's turn/end: a waiting `task` call gets its child's answer; a child's turn
        nobody waits for (input sent with `subagent.prompt`) reaches its parent as context: returned
        as (parent id, text) for the subagent service to deliver."""
        outcome = Outcome(reason, answer_text(answer))
        future = self._waiters.get(first.id)
        if future is not None:
            if not future.done():
                future.set_result(outcome)
            return None
        lineage = self.lineage.get(agent.session_id)
        if lineage is None or reason.kind == "interrupted":
            return None
        return lineage.parent, delivery_text(lineage.label, agent.session_id, outcome)
