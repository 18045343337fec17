"""The goal continuation driver: one more round toward the goal each time the agent goes idle
(docs/architecture.md, "Goals").

At each idle (and after each mutation) it queues the next round as an ordinary next-turn
message (source `{kind: goal, goalId, revision, round}`, a `<goal_round>` text) when the agent is
live and idle, no person's input waits and the goal is `active` and armed. A round counts only
when its message is admitted (`on_admitted`); its own prompt gate drops a round that went stale
before its turn claims it (the goal changed, or a person's input joined): that turn ends
`blocked` and the next idle reserves again. At the cap the goal is blocked `round-limit`.
Cancelling a goal round pauses the goal; an error, `max-tokens`, or another gate's veto disarm
or block it. Activation is process-local: a newly loaded agent starts disarmed.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from contract._base import to_wire
from contract.content import Message, MessageSource, TextBlock
from contract.events import TurnEndReason
from contract.goals import GOAL_KEY, GoalChange
from host.engine.agent.goals.domain import GoalLedger, GoalRejected, fold_projection
from host.engine.agent.prompt_gates import PromptCheck, PromptGates, Veto
from host.engine.errors import AgentBusy
from host.engine.sessions import events
from host.engine.sessions.journal import now_ms
from host.engine.store import Store

if TYPE_CHECKING:
    from host.engine.agent.agent import Agent

log = logging.getLogger(__name__)

REPLAYED = ("goal/change", "user/message")
INSTRUCTIONS = (
    "Keep working toward this objective in this same session. Treat the workspace, tool results "
    "and durable state as authoritative: re-inspect them rather than trusting earlier narration. "
    "Make verified progress. Before you claim completion, gather evidence, read the goal and mark "
    "it complete; if work remains, leave the goal active. Follow the goal policy before you "
    "report a blocker."
)


def round_text(objective: str, round_no: int, cap: int) -> str:
    """The round's prompt: the objective as a JSON string (multi-line or tag-like text stays
    data), `Round: n/N`, and the instructions."""
    return (
        f"<goal_round>\nObjective: {json.dumps(objective, ensure_ascii=False)}\n"
        f"Round: {round_no}/{cap}\n\n{INSTRUCTIONS}\n</goal_round>"
    )


def goal_source(message: Message) -> dict[str, Any] | None:
    source = message.source
    return to_wire(source) if source.kind == "goal" else None


@dataclass
class SessionGoals:
    """One loaded agent's goal ledger and the driver's bookkeeping for it."""

    agent: Agent
    ledger: GoalLedger
    reserved: str | None = None
    """The message id of the queued, not yet claimed round."""
    running_round: int | None = None
    """The admitted round whose turn is running."""
    stale: bool = False
    """Our own gate dropped the claimed round (it went stale): reserve again at idle."""
    projected: Any = None
    """The `goal` projection's value: the newest logged `goal/change`'s (never a round's)."""
    next_round_at: float = 0.0
    """The loop time before which no round starts (the gap after the last round)."""
    waiting: asyncio.TimerHandle | None = None
    """The check scheduled for the end of that gap."""
    idle_rounds: int = 0
    """Rounds in a row that ended without one tool call."""


ROUND_GAP = 1.0
"""Seconds between the end of a round and the start of the next: a fast model ran 9 rounds a
second, too fast for a person to read or to click Pause (docs/architecture.md, "Goals")."""
NO_PROGRESS_ROUNDS = 3
"""Rounds in a row without a tool call after which the goal is blocked (`no-progress`): the model
only talks, and more rounds would only repeat it."""


class GoalDriver:
    def __init__(
        self,
        store: Store,
        gates: PromptGates,
        live: Callable[[str], Agent | None],
        round_gap: float = ROUND_GAP,
    ) -> None:
        self._round_gap = round_gap
        self._store = store
        self._live = live
        self.live = live
        self.sessions: dict[str, SessionGoals] = {}
        self.turn_sources: dict[str, str] = {}
        """Session → the source kind of the running turn's opening message (goal tools' authority)."""
        gates.add(self._gate, frozenset({"goal"}))
        gates.on_admitted(self._admitted)

    # ---- the ledger of a loaded agent ----------------------------------------------------------

    async def of(self, agent: Agent) -> SessionGoals:
        """The agent's goals, rebuilt from the log (disarmed) the first time it asks."""
        found = self.sessions.get(agent.session_id)
        if found is not None and found.agent is agent:
            return found
        await self._store.flush()
        logged = await self._store.events_of_types(agent.session_id, REPLAYED)
        found = self.sessions.get(agent.session_id)
        if found is not None and found.agent is agent:
            return found  # a concurrent call loaded it meanwhile
        ledger = GoalLedger()
        changes = []
        for event in logged:
            if event.type == "goal/change":
                ledger.replay(event.data)
                changes.append(event.data)
            elif event.data.get("source", {}).get("kind") == "goal":
                ledger.admit(event.data["source"])
        found = SessionGoals(agent, ledger, projected=fold_projection(changes))
        self.sessions[agent.session_id] = found
        return found

    def mutate(self, goals: SessionGoals, apply: Callable[[GoalLedger, int], GoalChange]) -> GoalChange:
        """Apply one mutation, log its `goal/change`, publish the projection, re-check."""
        if self._live(goals.agent.session_id) is not goals.agent:
            raise GoalRejected("GOAL_AGENT_NOT_LIVE", "the session's agent was replaced; try again")
        change = apply(goals.ledger, now_ms())
        goals.idle_rounds = 0  # a change of the goal (a person's resume, an edit) starts the count again
        journal = goals.agent.journal
        event = journal.append(events.goal_change(change))
        projection = change.projection()
        goals.projected = projection.dump() if projection else None
        journal.project(GOAL_KEY, goals.projected, event.seq, after=journal.last_ticket)
        self.check(goals.agent)
        return change

    def _quiet_mutation(self, goals: SessionGoals, apply: Callable[[GoalLedger, int], GoalChange]) -> bool:
        try:
            self.mutate(goals, apply)
            return True
        except GoalRejected as exc:
            log.info("goal driver in %s: %s", goals.agent.session_id, exc)
            goals.ledger.armed = False
            return False

    # ---- when rounds start --------------------------------------------------------------------

    def idle(self, agent: Agent) -> None:
        """The agent drained its inbox (called by its loop)."""
        self.check(agent)

    def check(self, agent: Agent) -> None:
        goals = self.sessions.get(agent.session_id)
        if goals is None or goals.agent is not agent or self._live(agent.session_id) is not agent:
            return
        ledger, goal = goals.ledger, goals.ledger.current
        if goal is None or goal.phase != "active" or not ledger.armed or ledger.broken:
            return
        if agent.turn_open or agent.input.inbox.next_turn or goals.reserved is not None:
            return
        wait = goals.next_round_at - asyncio.get_running_loop().time()
        if wait > 0:
            if goals.waiting is None:
                goals.waiting = asyncio.get_running_loop().call_later(wait, self._after_gap, goals)
            return
        if goal.exhausted:
            message = f"Goal reached its configured limit of {goal.max_goal_rounds} rounds."
            ref = goal.ref
            self._quiet_mutation(goals, lambda ledger, now: ledger.block(ref, "round-limit", message, now))
            return
        round_no = goal.rounds_started + 1
        source = MessageSource.model_validate(
            {"kind": "goal", "goalId": goal.id, "revision": goal.revision, "round": round_no}
        )
        try:
            goals.reserved = agent.input.queue(
                [TextBlock(text=round_text(goal.objective, round_no, goal.max_goal_rounds))], source
            )
        except AgentBusy as exc:
            ref, why = goal.ref, f"Could not queue goal round {round_no}: {exc}"
            self._quiet_mutation(goals, lambda ledger, now: ledger.block(ref, "queue-failed", why, now))

    def _after_gap(self, goals: SessionGoals) -> None:
        goals.waiting = None
        self.check(goals.agent)

    # ---- claim, admission and the turn's end --------------------------------------------------

    async def _gate(self, check: PromptCheck) -> Veto | None:
        """Drop a round that went stale before its turn claimed it (no `prompt/blocked`)."""
        goals = self.sessions.get(check.session_id)
        source = goal_source(check.message) or {}
        if goals is None:
            return Veto("the goal round is stale")
        goals.reserved = None
        goal, agent = goals.ledger.current, goals.agent
        person_waits = any(m.source.kind == "user" for m in agent.input.inbox.next_turn)
        fresh = (
            goal is not None
            and goals.ledger.armed
            and goal.phase == "active"
            and source.get("goalId") == goal.id
            and source.get("revision") == goal.revision
            and source.get("round") == goal.rounds_started + 1 <= goal.max_goal_rounds
            and not person_waits
        )
        if fresh:
            return None
        goals.stale = True
        return Veto("the goal round is stale")

    def _admitted(self, session_id: str, message: Message) -> None:
        self.turn_sources[session_id] = message.source.kind
        source = goal_source(message)
        goals = self.sessions.get(session_id)
        if source is None or goals is None:
            return
        if goals.ledger.admit(source):
            goals.running_round = source.get("round")

    def turn_ended(self, agent: Agent, first: Message, reason: TurnEndReason, answer: Message | None) -> None:
        self.turn_sources.pop(agent.session_id, None)
        goals = self.sessions.get(agent.session_id)
        if goals is None or goals.agent is not agent:
            return
        ledger, goal = goals.ledger, goals.ledger.current
        if first.source.kind != "goal":
            if reason.kind == "aborted" and reason.by == "user":
                ledger.armed = False  # a cancel not related to a goal round: disarm only
            return
        goals.reserved, was_running, stale = None, goals.running_round, goals.stale
        goals.running_round, goals.stale = None, False
        goals.next_round_at = asyncio.get_running_loop().time() + self._round_gap
        if goal is None:
            return
        if reason.kind == "completed" and was_running is not None and goal.phase == "active":
            goals.idle_rounds = 0 if agent.last_turn_called_tools else goals.idle_rounds + 1
            if goals.idle_rounds >= NO_PROGRESS_ROUNDS and not goal.exhausted:  # else: the cap says it
                goals.idle_rounds = 0
                ref = goal.ref
                text = (
                    f"The last {NO_PROGRESS_ROUNDS} rounds made no tool calls: the agent only answered."
                    " Tell it what to do next, or resume the goal."
                )
                self._quiet_mutation(goals, lambda ledger, now: ledger.block(ref, "no-progress", text, now))
                return
        if reason.kind == "blocked" and not stale and was_running is None:
            # another gate (a UserPromptSubmit hook) refused the round
            ref = goal.ref
            text = "A prompt check refused the goal round."
            self._quiet_mutation(goals, lambda ledger, now: ledger.block(ref, "prompt-rejected", text, now))
        elif reason.kind == "aborted" and reason.by == "user":
            if goal.phase == "active":
                ref = goal.ref
                if not self._quiet_mutation(goals, lambda ledger, now: ledger.pause(ref, now)):
                    ledger.armed = False
        elif reason.kind in ("error", "max-tokens", "interrupted", "aborted"):
            ledger.armed = False

    def live_values(self, agent: Agent) -> dict[str, Any]:
        """`{goal: value}` for a list row of an attached session whose goals are loaded."""
        goals = self.sessions.get(agent.session_id)
        if goals is None or goals.agent is not agent:
            return {}
        return {GOAL_KEY: goals.projected}

    def forget(self, session_id: str) -> None:
        self.sessions.pop(session_id, None)
