"""One agent per attached session: an asyncio task draining an inbox (docs/architecture.md,
"Agents").

- `queue` → FIFO next-turn input; wakes an idle agent.
- `steer` → delivered at the next step checkpoint as `steering/message`; idle → ordinary turn.
- `inject` → engine-internal context without running the model; idle → one-shot `injection` turn.
- `cancel` → aborts the running step and turn (`turn/end aborted {by}`), cancels the session's
  pending approvals/questions, clears queued input (reported via `session/queue`). Idle: no-op.

`running` covers the whole drain interval (turn close, checkpoint, back-to-back queued turns);
`host/session-status` is published exactly on its edges.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from contract.content import AttachmentRef, ContentBlock, Message, MessageSource
from contract.events import AbortedBy, TurnEndReason, TurnTrigger
from contract.frames import HostAgentError, HostSessionStatus, QueueItem, SessionQueue
from contract.questions import AnswerSet, Question
from contract.sessions import ModelSelection
from host.engine import events, ids
from host.engine.bus import Bus
from host.engine.composition import Composition, StepSetup
from host.engine.context import first_user_text
from host.engine.errors import AgentBusy, QueueItemNotFound, SteerUnavailable
from host.engine.journal import Journal
from host.engine.llm.base import LlmAdapter
from host.engine.pending import PendingTable, QuestionCancelled
from host.engine.permissions.policy import PermissionService, SessionPermissions
from host.engine.project import Instructions, instructions_view
from host.engine.store import Store
from host.engine.titles import auto_title
from host.engine.turn import Conversation, Turn, TurnServices

log = logging.getLogger(__name__)

MAX_QUEUE = 100


@dataclass
class AgentDeps:
    store: Store
    bus: Bus
    pending: PendingTable
    adapter_for: Callable[[str], LlmAdapter | None]
    selection: Callable[[], ModelSelection]
    permissions: PermissionService
    step_cap: int = 25


@dataclass
class InboxItem:
    item_id: str
    content: list[ContentBlock]
    source: MessageSource
    mode: Literal["queue", "steer"] = "queue"
    waited: bool = False
    """Queued while a turn was running (so its turn's trigger is `queue`)."""

    def message(self) -> Message:
        return events.new_message("user", list(self.content), self.source)


@dataclass
class _Flags:
    disposed: bool = False


class Agent:
    def __init__(
        self,
        journal: Journal,
        cwd: Path,
        deps: AgentDeps,
        history: list[Message],
        next_turn: int,
        composition: Composition,
        policy: SessionPermissions,
    ) -> None:
        self.conversation = Conversation(journal, history)
        self.composition = composition
        """The session's preset, project instructions, skills and plan mode."""
        self.policy = policy
        """The session's permission preset and "Allow always" rules."""
        self._instructions: tuple[str, str] | None = None
        self.session_id = journal.session_id
        self.deps = deps
        self.next_turn = next_turn
        self.running = False
        self.turn_open = False
        self.cancel_by: AbortedBy | None = None
        self._services = TurnServices(
            session_id=self.session_id,
            cwd=cwd,
            step_cap=deps.step_cap,
            prepare=self._prepare,
            selection=deps.selection,
            adapter_for=deps.adapter_for,
            pending=deps.pending,
            commit=deps.store.commit,
            load_attachment=self._load_attachment,
            ask_user=self._ask_user,
            policy=policy,
            grant=self._grant,
        )
        self._queue: deque[InboxItem] = deque()
        self._steering: list[InboxItem] = []
        self._injections: list[Message] = []
        self._wake = asyncio.Event()
        self._flags = _Flags()
        self._task: asyncio.Task[None] | None = None
        self._turn_task: asyncio.Task[TurnEndReason] | None = None

    @property
    def journal(self) -> Journal:
        return self.conversation.journal

    @property
    def history(self) -> list[Message]:
        return self.conversation.history

    def start(self) -> None:
        self._task = asyncio.create_task(self._drain(), name=f"agent-{self.session_id}")

    # ---- input ----------------------------------------------------------------------------

    def queue(self, content: list[ContentBlock], source: MessageSource) -> str:
        """FIFO next-turn input; wakes an idle agent. Returns the queue item id."""
        self._check_open()
        item = InboxItem(ids.queue_item_id(), list(content), source, "queue", waited=self.running)
        self._queue.append(item)
        if item.waited:
            self._publish_queue()
        self._poke()
        return item.item_id

    def steer(self, content: list[ContentBlock], source: MessageSource) -> str:
        """Next-step input for the running turn; on an idle agent an ordinary turn."""
        self._check_open()
        item = InboxItem(ids.steer_item_id(), list(content), source, "steer")
        if self.turn_open:
            self._steering.append(item)
        else:
            item.waited = self.running
            self._queue.append(item)
            if item.waited:
                self._publish_queue()
            self._poke()
        return item.item_id

    def inject(self, content: list[ContentBlock], meta: dict[str, Any] | None = None) -> None:
        """Engine-internal context (e.g. a file-changed notice); never runs the model by itself."""
        self._check_open()
        source = MessageSource(kind="plugin", meta=meta or None)
        self._injections.append(events.new_message("user", list(content), source))
        if not self.turn_open:
            self._poke()

    def cancel(self, by: AbortedBy = "user") -> bool:
        """Abort the running turn, cancel pending requests, clear queued input. False when idle."""
        if not self.running and not self.turn_open and not self._queue:
            return False
        had_queue = bool(self._queue)
        self._queue.clear()
        self._steering.clear()
        if had_queue:
            self._publish_queue()
        self.deps.pending.cancel_session(self.session_id)
        if self.turn_open and self._turn_task is not None and self.cancel_by is None:
            self.cancel_by = by
            self._turn_task.cancel()
        return True

    def queue_items(self) -> list[QueueItem]:
        return [QueueItem(item_id=i.item_id, content=i.content, mode="queue") for i in self._queue]

    def update_queue(self, item_id: str, kind: str, content: list[ContentBlock] | None = None) -> None:
        """Edit, remove or promote to steering one queued item."""
        item = next((i for i in self._queue if i.item_id == item_id), None)
        if item is None:
            raise QueueItemNotFound(item_id, "the item was already claimed or removed")
        if kind == "edit":
            item.content = list(content or [])
        elif kind == "remove":
            self._queue.remove(item)
        elif kind == "steer":
            if not self.turn_open:
                raise SteerUnavailable(item_id, "no turn is running to steer")
            self._queue.remove(item)
            item.mode = "steer"
            self._steering.append(item)
        else:
            raise ValueError(f"unknown queue action {kind!r}")
        self._publish_queue()

    # ---- what turns consume (the turn's `Inbox`) --------------------------------------------

    def take_steering(self) -> list[Message]:
        items, self._steering = self._steering, []
        return [i.message() for i in items]

    def take_injections(self) -> list[Message]:
        items, self._injections = self._injections, []
        return items

    def has_checkpoint_input(self) -> bool:
        return bool(self._steering or self._injections)

    async def _prepare(self, claimed: list[Message]) -> StepSetup:
        setup = await self.composition.prepare(claimed)
        self.publish_instructions(setup.instructions)
        return setup

    # ---- live state for the windows (session projections) ------------------------------------

    def publish_instructions(self, found: Instructions | None) -> None:
        """The `instructions` projection, when the file in use changed."""
        key = (found.name, str(found.path)) if found is not None else None
        if key != self._instructions:
            self._instructions = key
            self.journal.project("instructions", instructions_view(found), self.journal.last_seq)

    def publish_plan(self) -> None:
        self.journal.project("plan", {"active": self.composition.plan_active}, self.journal.last_seq)

    async def _ask_user(self, questions: list[Question]) -> AnswerSet:
        try:
            return await self.deps.pending.question(self.session_id, questions)
        except QuestionCancelled:
            raise asyncio.CancelledError() from None

    def _grant(self, tool: str, scope: str) -> None:
        self.deps.permissions.grant(self.policy, tool, scope)

    async def _load_attachment(self, ref: AttachmentRef) -> bytes | None:
        found = await self.deps.store.attachment(self.session_id, ref.attachment_id)
        return None if found is None else found[1]

    # ---- lifecycle ------------------------------------------------------------------------

    async def dispose(self) -> None:
        """End a running turn `aborted {by: disposed}`, stop the loop and wait for it."""
        if self._flags.disposed:
            return
        self._flags.disposed = True
        self._queue.clear()
        self._steering.clear()
        if self.turn_open and self._turn_task is not None and self.cancel_by is None:
            self.cancel_by = "disposed"
            self._turn_task.cancel()
        self._wake.set()
        if self._task is not None:
            await asyncio.wait([self._task])

    def _check_open(self) -> None:
        if self._flags.disposed:
            raise AgentBusy("the session is closing")
        if len(self._queue) >= MAX_QUEUE:
            raise AgentBusy(f"the queue is full ({MAX_QUEUE} items)")

    def _poke(self) -> None:
        self._wake.set()

    def _publish_queue(self) -> None:
        self.deps.bus.publish("mux", SessionQueue(session_id=self.session_id, items=self.queue_items()))

    def _set_running(self, running: bool) -> None:
        if running == self.running:
            return
        self.running = running
        self.deps.bus.publish("host", HostSessionStatus(session_id=self.session_id, running=running))

    async def _drain(self) -> None:
        while not self._flags.disposed:
            await self._wake.wait()
            self._wake.clear()
            try:
                while not self._flags.disposed and (self._queue or self._steering or self._injections):
                    self._set_running(True)
                    await self._one_turn()
            except Exception as exc:
                log.exception("agent %s failed outside a turn", self.session_id)
                message = f"{type(exc).__name__}: {exc}"
                self.deps.bus.publish("host", HostAgentError(session_id=self.session_id, message=message))
            self._set_running(False)
        self._set_running(False)

    async def _one_turn(self) -> None:
        trigger: TurnTrigger
        if self._queue or self._steering:
            item = self._queue.popleft() if self._queue else self._steering.pop(0)
            if item.waited:
                self._publish_queue()
                trigger = "queue"
            else:
                trigger = "steer" if item.mode == "steer" else "user"
            first = [item.message()]
        else:
            trigger = "injection"
            first = self.take_injections()
        self.policy.log_pin(self.journal)
        turn = Turn(self.conversation, self, self._services, self.next_turn, trigger)
        self.next_turn += 1
        self.turn_open = True
        self.cancel_by = None
        turn.begin(first)
        self._turn_task = asyncio.create_task(turn.run())
        await asyncio.wait([self._turn_task])
        task, self._turn_task = self._turn_task, None
        reason = turn.aborted() if task.cancelled() else task.result()
        turn.finish(reason)
        self.turn_open = False
        self.cancel_by = None
        if self._steering:  # steering that missed the last checkpoint becomes queued input
            for leftover in self._steering:
                leftover.waited = True
                self._queue.append(leftover)
            self._steering.clear()
            self._publish_queue()
        await self.deps.store.flush(checkpoint=True)
        if reason.kind == "completed" and self.journal.title is None:
            text = first_user_text(self.conversation.history)
            title = auto_title(text) if text else None
            if title:
                self.journal.append(events.session_title(title, "auto"))
