"""The one pending table for approvals and questions (docs/architecture.md, "Approvals and
questions").

Keyed by the stable rpcId of the answerable frame. The first valid answer wins; a late or
duplicate answer gets `not-pending`; a malformed one `bad-response` and the request stays
pending. Tool cancellation, session cancel and shutdown resolve requests as `cancelled`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from contract._base import FROM_WIRE
from contract.approvals import (
    AllowAlways,
    ApprovalAnswer,
    ApprovalOutcome,
    ApprovalRequested,
    ApprovalResolved,
    ApprovalWhy,
    AskedBy,
    RuleSuggestion,
)
from contract.filechange import FileChange
from contract.questions import (
    AnswerSet,
    Question,
    QuestionAnswer,
    QuestionRequested,
    QuestionResolved,
    answer_problems,
)
from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused, RpcErr, new_rpc_id
from host.engine.sessions.bus import Bus

Kind = Literal["approval", "question"]


class QuestionCancelled(Exception):
    """The question was cancelled (by the client, the tool's cancellation, or shutdown)."""


@dataclass
class PendingRequest:
    rpc_id: str
    kind: Kind
    session_id: str
    """Where it is shown and answered: the asking session, or a subagent's parent."""
    frame: ApprovalRequested | QuestionRequested
    future: asyncio.Future[Any] = field(repr=False)
    owner: str = ""
    """The session that asks (a subagent's own id when it is shown in its parent)."""


Route = Callable[[str], "tuple[str, AskedBy] | None"]
"""A subagent's id → (the session that shows its requests, the label naming the child)."""


class PendingTable:
    """In-memory judge of answerable server-requests; publishes requested/resolved frames."""

    def __init__(
        self,
        bus: Bus,
        counted: Callable[[str, int], None] | None = None,
        route: Route = lambda session_id: None,
    ) -> None:
        self._bus = bus
        self._counted: list[Callable[[str, int], None]] = [counted] if counted is not None else []
        """Told (session, how many requests it shows) after each change: the attention state,
        and the automations (`on_counted`, they are built later)."""
        self._items: dict[str, PendingRequest] = {}
        self._notes: dict[str, str] = {}
        """rpcId → the note of a rejection, until the asker takes it."""
        self._route = route
        """The subagent tracker's: a child's requests appear in its parent's conversation
        (docs/architecture.md, "Subagents")."""

    def on_counted(self, listener: Callable[[str, int], None]) -> None:
        """`listener(session, how many requests it shows)` after each change."""
        self._counted.append(listener)

    # ---- asking ---------------------------------------------------------------------------

    def ask_approval(
        self,
        session_id: str,
        approval_id: str,
        tool_name: str,
        call_id: str | None = None,
        reason: str | None = None,
        arguments: Any = None,
        preview: FileChange | None = None,
        always: AllowAlways | None = None,
        why: ApprovalWhy | None = None,
        pattern_rule: RuleSuggestion | None = None,
    ) -> tuple[str, asyncio.Future[ApprovalOutcome]]:
        """Publish `approval/requested`; the future resolves with the outcome (a rejection's
        note, if any, is then `take_note(rpc_id)`)."""
        shown, asked_by = self._shown(session_id)
        frame = ApprovalRequested(
            session_id=shown,
            approval_id=approval_id,
            tool_name=tool_name,
            call_id=call_id,
            reason=reason,
            arguments=arguments,
            preview=preview,
            subagent=asked_by,
            always=always,
            why=why,
            pattern_rule=pattern_rule,
        )
        return self._add("approval", session_id, frame)

    def ask_question(
        self, session_id: str, questions: list[Question]
    ) -> tuple[str, asyncio.Future[AnswerSet | None]]:
        """Publish `question/requested`; the future resolves with the answer, None if cancelled."""
        shown, asked_by = self._shown(session_id)
        frame = QuestionRequested(session_id=shown, questions=questions, subagent=asked_by)
        return self._add("question", session_id, frame)

    def _shown(self, session_id: str) -> tuple[str, AskedBy | None]:
        routed = self._route(session_id)
        return routed if routed is not None else (session_id, None)

    async def question(self, session_id: str, questions: list[Question]) -> AnswerSet:
        """Ask and wait; cancelling the waiter cancels the request. Raises QuestionCancelled."""
        rpc_id, future = self.ask_question(session_id, questions)
        try:
            answer = await asyncio.shield(future)
        except asyncio.CancelledError:
            self.cancel(rpc_id)
            raise
        if answer is None:
            raise QuestionCancelled(rpc_id)
        return answer

    def _add(
        self, kind: Kind, owner: str, frame: ApprovalRequested | QuestionRequested
    ) -> tuple[str, asyncio.Future[Any]]:
        rpc_id = new_rpc_id()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._items[rpc_id] = PendingRequest(rpc_id, kind, frame.session_id, frame, future, owner)
        self._bus.publish("mux", frame, rpc_id=rpc_id)
        self._count(frame.session_id)
        return rpc_id, future

    # ---- answering ------------------------------------------------------------------------

    def respond(self, response: ClientResponse) -> ReceiptAccepted | ReceiptRefused:
        """Judge a client-response: first valid answer wins."""
        item = self._items.get(response.rpc_id)
        if item is None:
            return ReceiptRefused(reason="not-pending")
        result = response.result
        if isinstance(result, RpcErr):
            if getattr(result.error, "code", None) != "cancelled":
                return ReceiptRefused(reason="bad-response")
            self._resolve(item, None)
            return ReceiptAccepted()
        value = _parse_answer(item, result.value)
        if value is None:
            return ReceiptRefused(reason="bad-response")
        if isinstance(value, ApprovalAnswer):
            if value.note:
                self._notes[item.rpc_id] = value.note
            value = value.outcome
        self._resolve(item, value)
        return ReceiptAccepted()

    def take_note(self, rpc_id: str) -> str | None:
        """The note the person gave with a rejection (once)."""
        return self._notes.pop(rpc_id, None)

    def cancel(self, rpc_id: str) -> bool:
        """Resolve one request as cancelled (tool cancellation). False when not pending."""
        item = self._items.get(rpc_id)
        if item is None:
            return False
        self._resolve(item, None)
        return True

    def cancel_session(self, session_id: str) -> int:
        """Cancel every pending request a session asked or shows (session cancel)."""
        items = [i for i in self._items.values() if session_id in (i.session_id, i.owner)]
        for item in items:
            self._resolve(item, None)
        return len(items)

    def cancel_all(self) -> int:
        """Cancel everything (host shutdown)."""
        items = list(self._items.values())
        for item in items:
            self._resolve(item, None)
        return len(items)

    # ---- replay ---------------------------------------------------------------------------

    def requests_for(self, session_id: str) -> list[tuple[str, BaseModel]]:
        """Still-pending `*/requested` frames a session shows or asked, with their stable rpcIds
        (a subagent's are replayed with its parent's and its own: clients keep one per rpcId)."""
        return [(i.rpc_id, i.frame) for i in self._items.values() if session_id in (i.session_id, i.owner)]

    def _resolve(self, item: PendingRequest, value: Any) -> None:
        """`value` None means cancelled. Removes the entry, publishes the resolution."""
        self._items.pop(item.rpc_id, None)
        resolved: BaseModel
        if item.kind == "approval":
            outcome: ApprovalOutcome = value if value is not None else "cancelled"
            assert isinstance(item.frame, ApprovalRequested)
            resolved = ApprovalResolved(
                session_id=item.session_id, approval_id=item.frame.approval_id, outcome=outcome
            )
            result: Any = outcome
        else:
            resolved = QuestionResolved(
                session_id=item.session_id,
                question_rpc_id=item.rpc_id,
                outcome="answered" if value is not None else "cancelled",
            )
            result = value
        if not item.future.done():
            item.future.set_result(result)
        self._bus.publish("mux", resolved)
        self._count(item.session_id)

    def _count(self, session_id: str) -> None:
        count = sum(1 for i in self._items.values() if i.session_id == session_id)
        for counted in self._counted:
            counted(session_id, count)


def _parse_answer(item: PendingRequest, value: Any) -> Any:
    """The accepted value (ApprovalAnswer or AnswerSet), or None when the answer is malformed."""
    try:
        if item.kind == "approval":
            assert isinstance(item.frame, ApprovalRequested)
            answer = ApprovalAnswer.model_validate(value, **FROM_WIRE)
            if answer.session_id != item.session_id or answer.approval_id != item.frame.approval_id:
                return None
            answer.note = (answer.note or "").strip() or None
            if answer.note is not None and answer.outcome != "rejected":
                return None  # a note goes with a rejection only
            return answer
        assert isinstance(item.frame, QuestionRequested)
        q_answer = QuestionAnswer.model_validate(value, **FROM_WIRE)
    except ValidationError:
        return None
    if q_answer.session_id != item.session_id:
        return None
    if answer_problems(item.frame.questions, q_answer.answer):
        return None
    return q_answer.answer
