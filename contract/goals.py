"""The `goal.*` domain: a long-running objective the host keeps the agent working toward
(docs/architecture.md, "Goals").

Every mutation names the exact revision it changes (`GoalRef`, compare-and-set) and answers the
new one; the read side is the `goal` session projection (`GoalProjection | null`). Each accepted
mutation logs one `goal/change` event: a whole-value snapshot, or a tombstone for `clear`.
Domain rejections answer `internal {goalCode}` (contract/errors.py, `InternalDetails`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt, model_validator

from contract._base import WireModel

DEFAULT_MAX_GOAL_ROUNDS = 256
MAX_SAFE_INTEGER = 2**53 - 1
GOAL_KEY = "goal"
"""The session projection key."""

GoalPhase = Literal["active", "paused", "blocked", "complete"]
GoalOperation = Literal["create", "edit", "pause", "resume", "complete", "block", "clear"]
Positive = Annotated[StrictInt, Field(ge=1)]
BLOCK_CODE = r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"


class GoalRef(WireModel):
    """The compare-and-set identity of one exact revision of a goal."""

    id: str = Field(min_length=1)
    revision: Positive


class GoalBlockReason(WireModel):
    code: str = Field(pattern=BLOCK_CODE)
    message: str = Field(min_length=1)

    @model_validator(mode="after")
    def _trimmed(self) -> GoalBlockReason:
        if self.message != self.message.strip() or not self.message:
            raise ValueError("a block reason's message is trimmed and not empty")
        return self


class GoalSnapshot(WireModel):
    id: str = Field(min_length=1)
    revision: Positive
    objective: str = Field(min_length=1)
    phase: GoalPhase
    blocked_reason: GoalBlockReason | None = None
    """Present exactly when `phase` is `blocked`."""
    max_goal_rounds: Positive

    @model_validator(mode="after")
    def _consistent(self) -> GoalSnapshot:
        if self.objective != self.objective.strip():
            raise ValueError("objective must be trimmed")
        if (self.phase == "blocked") != (self.blocked_reason is not None):
            raise ValueError("blockedReason is present exactly when phase is blocked")
        return self


class GoalProjection(WireModel):
    """The `goal` projection's value (never the process-local activation)."""

    goal: GoalSnapshot
    rounds_started: int = Field(ge=0)
    created_at: int = Field(ge=0)
    updated_at: int = Field(ge=0)


class GoalChange(WireModel):
    """`goal/change` data: a snapshot (`create|edit|pause|resume|complete|block`) with exactly
    `kind, version, operation, goal, roundsStarted, createdAt, updatedAt`, or the `clear`
    tombstone with exactly `kind, version, operation, cleared, clearedAt`. Log-only."""

    kind: Literal["goal/change"] = "goal/change"
    version: Literal[1] = 1
    operation: GoalOperation
    goal: GoalSnapshot | None = None
    rounds_started: int | None = Field(default=None, ge=0)
    created_at: int | None = Field(default=None, ge=0)
    updated_at: int | None = Field(default=None, ge=0)
    cleared: GoalRef | None = None
    cleared_at: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _one_shape(self) -> GoalChange:
        snapshot = (self.goal, self.rounds_started, self.created_at, self.updated_at)
        tombstone = (self.cleared, self.cleared_at)
        if self.operation == "clear":
            ok = all(v is not None for v in tombstone) and all(v is None for v in snapshot)
        else:
            ok = all(v is not None for v in snapshot) and all(v is None for v in tombstone)
        if not ok:
            raise ValueError(f"a {self.operation} goal/change has the wrong keys")
        return self

    def projection(self) -> GoalProjection | None:
        if self.goal is None:
            return None
        assert self.rounds_started is not None and self.created_at is not None and self.updated_at is not None
        return GoalProjection(
            goal=self.goal,
            rounds_started=self.rounds_started,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )


# ---- goal.create / edit / pause / resume / complete / clear -------------------------------------


class GoalCreateRequest(WireModel):
    session_id: str
    objective: str = Field(min_length=1)
    max_goal_rounds: Positive | None = None


class GoalEditRequest(WireModel):
    session_id: str
    ref: GoalRef
    objective: str | None = Field(default=None, min_length=1)
    max_goal_rounds: Positive | None = None

    @model_validator(mode="after")
    def _something(self) -> GoalEditRequest:
        if self.objective is None and self.max_goal_rounds is None:
            raise ValueError("send objective, maxGoalRounds or both")
        return self


class GoalRefRequest(WireModel):
    session_id: str
    ref: GoalRef


class GoalRefValue(WireModel):
    ref: GoalRef


class GoalCleared(WireModel):
    cleared: Literal[True] = True
