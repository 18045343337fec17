"""One agent per attached session: an asyncio task draining a durable inbox (docs/architecture.md,
"Agents").

- `queue` → next-turn input (FIFO); wakes an idle agent.
- `steer` → next-step input for the running turn (`steering/message` at its next step); with no
  turn open it is next-turn input like `queue`.
- `inject` → context for the next step (approval notices, job completions); never wakes the agent.
- `cancel` → aborts only the running turn (`turn/end aborted {by}`) and cancels the session's
  pending approvals/questions; queued input stays and the next item starts. `clear_queue` also
  drops the queued and steering input.

Both pending lists change only through logged `agent/inbox/spliced` events (host/engine/sessions/inbox.py),
so they survive a crash or a restart. `running` covers the whole drain interval (turn close,
checkpoint, back-to-back queued turns, a manual compaction); `host/session-status` is published
exactly on its edges. The input methods (queue, steer, inject, queue edits, what a turn claims)
are in host/engine/agent/input.py, a base class of `Agent`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from contract.content import AttachmentRef, Message, TextBlock
from contract.events import AbortedBy, ToolResult, TurnEndReason
from contract.frames import HostAgentError, HostSessionStatus
from contract.questions import AnswerSet, Question
from contract.sessions import ModelSelection
from host.engine.agent import compaction
from host.engine.agent.attention import Attention
from host.engine.agent.context_meter import ContextMeter
from host.engine.agent.input import AgentInput
from host.engine.agent.pending import PendingTable, QuestionCancelled
from host.engine.agent.prompt_gates import PromptGates
from host.engine.agent.slots import Slot, TurnSlots
from host.engine.agent.transcript import Surface, fold_surface
from host.engine.agent.turn import Turn
from host.engine.agent.turn_inputs import Conversation, NoAdapter, TurnServices
from host.engine.errors import AgentBusy
from host.engine.files.checkpoints import FileCheckpoints
from host.engine.files.snapshots import Snapshotter
from host.engine.integrations.hooks.service import HookService
from host.engine.llm.base import LlmAdapter
from host.engine.llm.windows import chars_per_token
from host.engine.presets.composition import Composition, StepSetup
from host.engine.presets.prompt_texts import first_user_text
from host.engine.sessions import events
from host.engine.sessions.bus import Bus
from host.engine.sessions.events import NewEvent
from host.engine.sessions.inbox import InboxLists
from host.engine.sessions.journal import Journal
from host.engine.sessions.project import Instructions, instructions_view
from host.engine.sessions.titles import auto_title
from host.engine.store import Store
from host.engine.tools.base import JobControl, SubagentControl
from host.engine.tools.permissions.policy import PermissionService, SessionPermissions

log = logging.getLogger(__name__)

TurnEnded = Callable[["Agent", Message, TurnEndReason, "Message | None"], None]
"""(agent, the message that opened the turn, how it ended, its final answer)."""


@dataclass
class AgentDeps:
    store: Store
    bus: Bus
    pending: PendingTable
    adapter_for: Callable[[str], LlmAdapter | None]
    selection: Callable[[], ModelSelection]
    permissions: PermissionService
    context_window: Callable[[ModelSelection], int]
    jobs: JobControl | None = None
    step_cap: int = 25
    subagents: SubagentControl | None = None
    turn_ended: TurnEnded | None = None
    """Told after every turn/end (the subagent service: a child's answer goes to its parent)."""
    snapshots: Snapshotter | None = None
    """The folder's snapshots around the steps that may change files (undo of shell commands)."""
    gates: PromptGates | None = None
    """The engine's prompt gates (host/engine/agent/prompt_gates.py)."""
    idle: Callable[[Agent], None] | None = None
    """Told each time the loop drained its inbox (the goal driver may queue the next round)."""
    hooks: HookService | None = None
    """The engine's hooks (host/engine/integrations/hooks/)."""
    slots: TurnSlots | None = None
    """Where a turn takes its slot before it opens (host/engine/agent/slots.py); None: its turns need
    none (a subagent runs inside its parent's turn, which holds one)."""
    attention: Attention | None = None
    """Told when the agent starts or stops working and how each turn ended."""


class Agent:
    def __init__(
        self,
        journal: Journal,
        cwd: Path,
        deps: AgentDeps,
        surface: Surface,
        next_turn: int,
        composition: Composition,
        policy: SessionPermissions,
        inbox: InboxLists | None = None,
    ) -> None:
        self.conversation = Conversation(journal, surface)
        self.composition = composition
        """The session's preset, project instructions, skills and plan mode."""
        self.policy = policy
        """The session's permission preset and "Allow always" rules."""
        self._instructions: tuple[str, str] | None = None
        self.session_id = journal.session_id
        self.deps = deps
        self.cwd = cwd
        self.next_turn = next_turn
        self.running = False
        self.turn_open = False
        self._disposed = False
        self.input = AgentInput(
            journal,
            deps.bus,
            inbox or InboxLists(),
            lambda: self.running,
            lambda: self.turn_open,
            lambda: self._disposed,
        )
        """The input side: queue, steer, inject, the queue's edits (host/engine/agent/input.py)."""
        self.last_turn_called_tools = False
        """Whether the last turn ran a tool call (a goal round without one made no progress)."""
        self.cancel_by: AbortedBy | None = None
        self.meter = ContextMeter(self.conversation, deps.selection, deps.context_window)
        """The top bar's context meter (host/engine/agent/context_meter.py)."""
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
            context_window=deps.context_window,
            report_context=self.meter.report,
            jobs=deps.jobs,
            notice=self._notice,
            checkpoint=FileCheckpoints(deps.store, self.session_id, cwd).before,
            subagents=deps.subagents,
            watch=partial(deps.snapshots.step, self.session_id, cwd) if deps.snapshots else None,
            gates=deps.gates,
            hooks=deps.hooks,
            rejoin=self.retake_slot,
        )
        self.opening: list[NewEvent[Any]] = []
        """Events the next turn logs right after its `turn/start` (a child's descriptor)."""
        self._exclusive = asyncio.Lock()
        """Held by a turn, or by a manual compaction: never both."""
        self._task: asyncio.Task[None] | None = None
        self._turn_task: asyncio.Task[TurnEndReason] | None = None
        self._turn: Turn | None = None
        """The open turn (None between turns)."""
        self._compaction: asyncio.Task[compaction.CompactOutcome] | None = None
        self._slot_wait: asyncio.Task[Slot] | None = None
        """The next turn waiting for a slot (Stop withdraws it)."""
        self.slot: Slot | None = None
        """The open turn's slot (an automation's run gives it back while it waits on the person:
        docs/decisions/automations.md)."""

    @property
    def exclusive(self) -> asyncio.Lock:
        """Held by a turn, a manual compaction or a revert of files: one at a time."""
        return self._exclusive

    @property
    def journal(self) -> Journal:
        return self.conversation.journal

    @property
    def history(self) -> list[Message]:
        return self.conversation.history

    async def refold(self) -> None:
        """Fold what the model sees again from the stored journal: a rewind cut it beneath us."""
        self.conversation.surface = fold_surface(await self.deps.store.surface_events(self.session_id))

    def start(self) -> None:
        """Run the loop; input left from before a restart (or a crash) is taken up at once."""
        leftover = self.input.inbox.steering()
        if leftover:
            self.input.late_steering()
        self._task = asyncio.create_task(self._drain(), name=f"agent-{self.session_id}")
        if self.input.inbox.next_turn:
            self.input.wake.set()

    def cancel(self, by: AbortedBy = "user", clear_queue: bool = False) -> bool:
        """Abort the running turn (or manual compaction) and cancel pending requests; queued input
        stays unless `clear_queue`. False when there was nothing to stop or drop."""
        if self._slot_wait is not None and not self._slot_wait.done():
            self._slot_wait.cancel()  # the turn that waited for a slot is dropped (in _drain)
            if clear_queue:
                self.input.clear_person_input()
            return True
        dropped = self.input.clear_person_input() if clear_queue else False
        active = self.running or self.turn_open or self._compaction is not None
        if not active:
            return dropped
        self.deps.pending.cancel_session(self.session_id)
        if self.turn_open and self._turn_task is not None and self.cancel_by is None:
            self.cancel_by = by
            self._turn_task.cancel()
        if self._compaction is not None:
            self._compaction.cancel()
        return True

    # ---- what turns consume (claiming input: host/engine/agent/input.py) --------------------

    async def _prepare(self, claimed: list[Message]) -> StepSetup:
        setup = await self.composition.prepare(claimed)
        self.publish_instructions(setup.instructions)
        self.meter.prepared(setup)
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

    # ---- compaction and the context meter ---------------------------------------------------

    async def compact(self, command_id: str | None = None) -> compaction.CompactOutcome:
        """Summarise the whole conversation now (`/compact`); only while no turn runs."""
        if self._disposed:
            raise AgentBusy("the session is closing")
        if self.turn_open or self._compaction is not None:
            return compaction.CompactionFailed("busy", "the agent is working; try again when it is idle")
        async with self._exclusive:  # a turn that is closing finishes first; the next one waits
            if self.turn_open:
                return compaction.CompactionFailed("busy", "the agent is working; try again when it is idle")
            self._set_running(True)
            try:
                selection = self.deps.selection()
                adapter = self.deps.adapter_for(selection.provider)
                if adapter is None:
                    raise NoAdapter(f"no adapter serves {selection.provider}/{selection.model}")
                window = self.deps.context_window(selection)
                budget = compaction.Budget(selection, adapter, window, chars_per_token(selection.provider))
                before = self.meter.estimate(selection)
                self._compaction = asyncio.create_task(
                    compaction.compact(
                        self.journal, self.conversation.surface, budget, turn=None, command_id=command_id
                    )
                )
                try:
                    outcome = await self._compaction
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if current is not None and current.cancelling():
                        raise  # our caller went away (the compaction was cancelled with it)
                    return compaction.CompactionFailed("cancelled", "the compaction was cancelled")
                if isinstance(outcome, compaction.Compacted):
                    after = self.meter.after_compaction(before, self.meter.estimate(selection))
                    self.meter.report(after, window)
                return outcome
            finally:
                self._compaction = None
                self._set_running(bool(self.input.inbox.next_turn))
                if self.input.inbox.next_turn:
                    self.input.wake.set()

    def context_view(self) -> dict[str, int]:
        """`{tokens, window}` for the `context` projection (an estimate before the first answer)."""
        return self.meter.view()

    def _notice(self, text: str) -> None:
        """An approval notice for the model's next step."""
        if not self._disposed:
            self.input.inject([TextBlock(text=text)], "approvals")

    # ---- lifecycle ------------------------------------------------------------------------

    async def dispose(self) -> None:
        """End a running turn `aborted {by: disposed}`, stop the loop and wait for it. Pending
        input stays in the log: the session takes it up when it is next loaded."""
        if self._disposed:
            return
        self._disposed = True
        self._end_work()
        if self._task is not None:
            await asyncio.wait([self._task])
        # The loop has ended: the conversation goes now, by reference counting. Left on the
        # agent, it would wait for the collector's next full pass (callbacks bound to the agent
        # make it a cycle), a closed session's whole transcript at a time
        # (docs/decisions/closed-session-memory.md).
        self.conversation.surface = Surface()

    def unsaved_calls(self) -> dict[str, ToolResult | None]:
        """The open turn's started calls and their results as this process knows them (what a
        store failure's repair writes instead of "the host stopped": host/engine/sessions/repair.py)."""
        return self._turn.unsaved() if self._turn is not None else {}

    def abandon(self) -> None:
        """Drop this agent after a store failure, writing nothing more: the log is detached, a
        running turn or compaction is cancelled, pending approvals/questions are cancelled. The
        in-memory inbox is dropped (what of it reached the disk is replayed when the session is
        next loaded, host/engine/sessions/inbox.py)."""
        if self._disposed:
            return
        self._disposed = True
        self.journal.detach()
        self.input.drop()
        self.deps.pending.cancel_session(self.session_id)
        self._end_work()

    def _end_work(self) -> None:
        """Cancel a running turn (`aborted {by: disposed}`) or compaction; the loop then ends."""
        if self.turn_open and self._turn_task is not None and self.cancel_by is None:
            self.cancel_by = "disposed"
            self._turn_task.cancel()
        if self._compaction is not None:
            self._compaction.cancel()
        if self._slot_wait is not None:
            self._slot_wait.cancel()
        self.input.wake.set()

    async def stopped(self, bound: float) -> None:
        """Wait (at most `bound` seconds) until the drain task has ended."""
        if self._task is not None and not self._task.done():
            await asyncio.wait([self._task], timeout=bound)

    async def closed(self) -> None:
        """Returns once the agent's loop has ended (it was disposed)."""
        if self._task is not None:
            await asyncio.shield(self._task)

    def _set_running(self, running: bool) -> None:
        if running == self.running:
            return
        self.running = running
        self.deps.bus.publish("host", HostSessionStatus(session_id=self.session_id, running=running))
        if self.deps.attention is not None:
            self.deps.attention.running(self.session_id, running)

    async def _drain(self) -> None:
        while not self._disposed:
            await self.input.wake.wait()
            self.input.wake.clear()
            try:
                while not self._disposed and self.input.inbox.next_turn:
                    self._set_running(True)
                    go, self.slot = await self._take_slot()
                    if not go:
                        continue
                    try:
                        async with self._exclusive:
                            if self._disposed or not self.input.inbox.next_turn:
                                break
                            await self._one_turn()
                    finally:
                        if self.slot is not None:
                            self.slot.release()
                            self.slot = None
            except Exception as exc:
                log.exception("agent %s failed outside a turn", self.session_id)
                message = f"{type(exc).__name__}: {exc}"
                self.deps.bus.publish("host", HostAgentError(session_id=self.session_id, message=message))
            if not self._disposed and self.deps.idle is not None:
                try:
                    self.deps.idle(self)  # may queue a goal round (which wakes the loop again)
                except Exception:
                    log.exception("the idle hook of %s failed", self.session_id)
            if not self.input.inbox.next_turn:
                self._set_running(False)
        self._set_running(False)

    def give_back_slot(self) -> bool:
        """Release the open turn's slot while it waits on the person (an automation's run paused
        on an approval); `retake_slot` queues for one again once it is answered. False when it
        holds none."""
        if self.slot is None or not self.slot.held:
            return False
        self.slot.release()
        return True

    async def retake_slot(self) -> None:
        """After an answer: a turn that gave its slot back waits in line for one again."""
        if self.slot is not None and not self.slot.held and self.deps.slots is not None:
            self.slot = await self.deps.slots.take(self.session_id)

    async def _take_slot(self) -> tuple[bool, Slot | None]:
        """(go, the next turn's slot or None when it needs none); go is False when Stop withdrew
        the waiting turn (its input is dropped, logged `canceled`) or the agent is closing."""
        if self.deps.slots is None:
            return True, None
        self._slot_wait = asyncio.create_task(self.deps.slots.take(self.session_id))
        try:
            await asyncio.wait([self._slot_wait])
        finally:
            task, self._slot_wait = self._slot_wait, None
            if not task.done():
                task.cancel()  # this loop itself was cancelled: leave the line, hold nothing
        if not task.cancelled():
            return True, task.result()
        if not self._disposed and self.input.inbox.next_turn:
            self.input.record(self.input.inbox.splice("next-turn", 0, 1, canceled=True))
        return False, None

    async def _one_turn(self) -> None:
        first = self.input.inbox.next_turn[0]
        claim = self.input.inbox.splice("next-turn", 0, 1)
        trigger = self.input.triggers.pop(first.id, "queue")
        self.policy.log_pin(self.journal)
        turn = Turn(
            self.conversation, self.input, lambda: self.cancel_by, self._services, self.next_turn, trigger
        )
        self._turn = turn
        self.next_turn += 1
        self.turn_open = True
        self.cancel_by = None
        if self.deps.attention is not None:
            self.deps.attention.turn_started(self.session_id)
        turn.begin(first, claim, self.opening)
        self.opening = []
        self.input.publish_queue()
        self._turn_task = asyncio.create_task(turn.run())
        await asyncio.wait([self._turn_task])
        task, self._turn_task = self._turn_task, None
        self._turn = None
        reason = turn.aborted() if task.cancelled() else task.result()
        turn.finish(reason)
        self.turn_open = False
        self.cancel_by = None
        self.last_turn_called_tools = turn.step > 0  # each step after the first follows tool calls
        if self.deps.attention is not None:
            self.deps.attention.turn_ended(self.session_id, reason.kind, self.journal.last_seq)
        if self.deps.turn_ended is not None:
            self.deps.turn_ended(self, first, reason, turn.answer)
        if self.input.inbox.steering():
            self.input.late_steering()
        await self.deps.store.flush(checkpoint=True)
        if reason.kind == "completed" and self.journal.title is None:
            text = first_user_text(self.conversation.history)
            title = auto_title(text) if text else None
            if title:
                self.journal.append(events.session_title(title, "auto"))
