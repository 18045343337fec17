"""The goal ledger of one session: compare-and-set mutations over the phase machine, and the
strict replay that rebuilds it from the log (docs/architecture.md, "Goals").

Pure: no I/O. Every accepted mutation returns the `goal/change` data to log; the caller appends
it. Activation (`armed`) is process-local and never logged: a ledger rebuilt from the log starts
disarmed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import ValidationError

from contract.errors import GoalErrorCode, InternalDetails
from contract.goals import (
    DEFAULT_MAX_GOAL_ROUNDS,
    MAX_SAFE_INTEGER,
    GoalBlockReason,
    GoalChange,
    GoalPhase,
    GoalProjection,
    GoalRef,
    GoalSnapshot,
)
from host.engine.errors import HostActionFailed
from host.engine.store import ids


class GoalRejected(HostActionFailed):
    """A goal-domain rejection: `internal {goalCode}` with the domain's text."""

    def __init__(self, goal_code: GoalErrorCode, message: str) -> None:
        super(HostActionFailed, self).__init__(message, InternalDetails(goal_code=goal_code))
        self.goal_code = goal_code


@dataclass(frozen=True)
class Goal:
    id: str
    revision: int
    objective: str
    phase: GoalPhase
    max_goal_rounds: int
    rounds_started: int
    created_at: int
    updated_at: int
    blocked_reason: GoalBlockReason | None = None

    @property
    def ref(self) -> GoalRef:
        return GoalRef(id=self.id, revision=self.revision)

    def snapshot(self) -> GoalSnapshot:
        return GoalSnapshot(
            id=self.id,
            revision=self.revision,
            objective=self.objective,
            phase=self.phase,
            blocked_reason=self.blocked_reason,
            max_goal_rounds=self.max_goal_rounds,
        )

    def projection(self) -> GoalProjection:
        return GoalProjection(
            goal=self.snapshot(),
            rounds_started=self.rounds_started,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )

    def change(self, operation: Any) -> GoalChange:
        return GoalChange(
            operation=operation,
            goal=self.snapshot(),
            rounds_started=self.rounds_started,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )

    @property
    def exhausted(self) -> bool:
        return self.rounds_started >= self.max_goal_rounds


def _objective(text: str) -> str:
    trimmed = text.strip()
    if not trimmed:
        raise GoalRejected("GOAL_INVALID_OBJECTIVE", "the objective is blank")
    return trimmed


def _rounds(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SAFE_INTEGER:
        raise GoalRejected("GOAL_INVALID_MAX_ROUNDS", "maxGoalRounds must be a positive safe integer")
    return value


@dataclass
class GoalLedger:
    """One session's current goal (or none), its activation and its replay verdict."""

    current: Goal | None = None
    armed: bool = False
    used_ids: set[str] = field(default_factory=set)
    last_time: int = 0
    broken: str | None = None
    """Why the log failed strict replay: every mutation is refused until it is repaired."""

    # ---- mutations (check order: live → exists → ref → phase → budget) -----------------------

    def _check_sound(self) -> None:
        if self.broken is not None:
            raise GoalRejected("GOAL_INVALID_TRANSITION", f"the session's goal log is damaged: {self.broken}")

    def _found(self, ref: GoalRef) -> Goal:
        self._check_sound()
        goal = self.current
        if goal is None:
            raise GoalRejected("GOAL_NOT_FOUND", "this session has no current goal")
        if ref.id != goal.id or ref.revision != goal.revision:
            raise GoalRejected(
                "GOAL_STALE_REVISION",
                f"the goal ref is stale: the current goal is revision {goal.revision}",
            )
        return goal

    def _now(self, now: int) -> int:
        return max(now, self.last_time, self.current.updated_at if self.current else 0)

    def _commit(self, goal: Goal, operation: str) -> GoalChange:
        self.current = goal
        self.last_time = goal.updated_at
        return goal.change(operation)

    def create(self, objective: str, max_rounds: int | None, now: int) -> GoalChange:
        text = _objective(objective)
        cap = _rounds(max_rounds if max_rounds is not None else DEFAULT_MAX_GOAL_ROUNDS)
        self._check_sound()
        if self.current is not None and self.current.phase != "complete":
            raise GoalRejected("GOAL_ALREADY_EXISTS", "a goal is already set; edit or clear it first")
        at = self._now(now)
        goal_id = ids.goal_id()
        self.used_ids.add(goal_id)
        self.armed = True
        return self._commit(Goal(goal_id, 1, text, "active", cap, 0, at, at), "create")

    def edit(self, ref: GoalRef, objective: str | None, max_rounds: int | None, now: int) -> GoalChange:
        if objective is None and max_rounds is None:
            raise GoalRejected("GOAL_INVALID_EDIT", "an edit needs objective or maxGoalRounds")
        text = _objective(objective) if objective is not None else None
        cap = _rounds(max_rounds) if max_rounds is not None else None
        goal = self._found(ref)
        edited = replace(
            goal,
            revision=goal.revision + 1,
            objective=text if text is not None else goal.objective,
            max_goal_rounds=cap if cap is not None else goal.max_goal_rounds,
            updated_at=self._now(now),
        )
        return self._commit(edited, "edit")

    def _move(
        self, ref: GoalRef, operation: str, allowed: set[GoalPhase], phase: GoalPhase, now: int
    ) -> Goal:
        goal = self._found(ref)
        if goal.phase not in allowed:
            raise GoalRejected("GOAL_INVALID_TRANSITION", f"cannot {operation} a goal that is {goal.phase}")
        return replace(goal, revision=goal.revision + 1, phase=phase, updated_at=self._now(now))

    def pause(self, ref: GoalRef, now: int) -> GoalChange:
        goal = self._move(ref, "pause", {"active"}, "paused", now)
        self.armed = False
        return self._commit(goal, "pause")

    def resume(self, ref: GoalRef, now: int) -> GoalChange:
        goal = self._found(ref)
        if goal.phase == "complete" or (goal.phase == "active" and self.armed):
            state = "already running" if goal.phase == "active" else "complete"
            raise GoalRejected("GOAL_INVALID_TRANSITION", f"cannot resume a goal that is {state}")
        if goal.exhausted:
            raise GoalRejected(
                "GOAL_INVALID_TRANSITION",
                f"the goal used all {goal.max_goal_rounds} rounds; raise maxGoalRounds first",
            )
        resumed = replace(
            goal, revision=goal.revision + 1, phase="active", blocked_reason=None, updated_at=self._now(now)
        )
        self.armed = True
        return self._commit(resumed, "resume")

    def complete(self, ref: GoalRef, now: int) -> GoalChange:
        goal = self._move(ref, "complete", {"active", "paused", "blocked"}, "complete", now)
        self.armed = False
        return self._commit(replace(goal, blocked_reason=None), "complete")

    def block(self, ref: GoalRef, code: str, message: str, now: int) -> GoalChange:
        try:
            reason = GoalBlockReason(code=code, message=message.strip())
        except ValidationError:
            raise GoalRejected(
                "GOAL_INVALID_BLOCK_REASON", "a block reason needs a code and a message"
            ) from None
        goal = self._move(ref, "block", {"active"}, "blocked", now)
        self.armed = False
        return self._commit(replace(goal, blocked_reason=reason), "block")

    def clear(self, ref: GoalRef, now: int) -> GoalChange:
        goal = self._found(ref)
        at = self._now(now)
        self.current = None
        self.armed = False
        self.last_time = at
        return GoalChange(
            operation="clear", cleared=GoalRef(id=goal.id, revision=goal.revision + 1), cleared_at=at
        )

    def admit(self, source: dict[str, Any]) -> bool:
        """A goal-sourced `user/message` was appended: count its round when it is the next one
        of the current active goal (human messages never count)."""
        goal = self.current
        if goal is None or goal.phase != "active":
            return False
        if source.get("goalId") != goal.id or source.get("revision") != goal.revision:
            return False
        if source.get("round") != goal.rounds_started + 1 or goal.rounds_started + 1 > goal.max_goal_rounds:
            return False
        self.current = replace(goal, rounds_started=goal.rounds_started + 1)
        return True

    # ---- strict replay ----------------------------------------------------------------------

    def replay(self, change_data: dict[str, Any]) -> None:
        """Fold one logged `goal/change`; a violation marks the ledger broken (and stops it)."""
        if self.broken is not None:
            return
        try:
            change = GoalChange.model_validate(change_data)
        except ValidationError as exc:
            self.broken = f"a goal/change does not validate ({exc.error_count()} problems)"
            return
        problem = self._illegal(change)
        if problem is not None:
            self.broken = problem
            return
        if change.operation == "clear":
            assert change.cleared_at is not None
            self.current, self.last_time = None, change.cleared_at
            return
        snap = change.goal
        assert snap is not None and change.rounds_started is not None
        assert change.created_at is not None and change.updated_at is not None
        self.used_ids.add(snap.id)
        self.current = Goal(
            snap.id,
            snap.revision,
            snap.objective,
            snap.phase,
            snap.max_goal_rounds,
            change.rounds_started,
            change.created_at,
            change.updated_at,
            snap.blocked_reason,
        )
        self.last_time = change.updated_at

    def _illegal(self, change: GoalChange) -> str | None:
        prev, op = self.current, change.operation
        stamp = change.cleared_at if op == "clear" else change.updated_at
        assert stamp is not None
        if stamp < self.last_time:
            return "a goal/change goes back in time"
        if op == "clear":
            assert change.cleared is not None
            if prev is None or change.cleared.id != prev.id or change.cleared.revision != prev.revision + 1:
                return "a clear does not follow its goal"
            return None
        snap = change.goal
        assert snap is not None and change.created_at is not None and change.updated_at is not None
        if change.updated_at < change.created_at:
            return "updatedAt is before createdAt"
        if op == "create":
            if snap.revision != 1 or snap.phase != "active" or change.rounds_started != 0:
                return "a create must be revision 1, active, with no rounds"
            if prev is not None and prev.phase != "complete":
                return "a create over a goal that is not complete"
            if snap.id in self.used_ids:
                return "a goal id is reused"
            return None
        if prev is None or snap.id != prev.id or snap.revision != prev.revision + 1:
            return "goal revisions are not contiguous"
        if change.created_at != prev.created_at:
            return "createdAt changed"
        allowed: dict[str, tuple[set[str], str | None]] = {
            "edit": ({"active", "paused", "blocked", "complete"}, None),
            "pause": ({"active"}, "paused"),
            "resume": ({"active", "paused", "blocked"}, "active"),
            "complete": ({"active", "paused", "blocked"}, "complete"),
            "block": ({"active"}, "blocked"),
        }
        phases, result = allowed[op]
        if prev.phase not in phases or (result is not None and snap.phase != result):
            return f"an illegal {op} from {prev.phase}"
        if op == "edit" and snap.phase != prev.phase:
            return "an edit changed the phase"
        if op != "edit" and (
            snap.objective != prev.objective or snap.max_goal_rounds != prev.max_goal_rounds
        ):
            return f"a {op} changed the objective or the round cap"
        return None


def fold_projection(changes: list[dict[str, Any]]) -> Any:
    """The `goal` projection from logged `goal/change` data only: the latest snapshot's whole
    value, `None` after a clear; a malformed change leaves the previous value."""
    value: Any = None
    for data in changes:
        try:
            change = GoalChange.model_validate(data)
        except ValidationError:
            continue
        projection = change.projection()
        value = projection.dump() if projection is not None else None
    return value
