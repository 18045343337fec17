"""The model's goal tools: `get_goal`, `create_goal`, `update_goal` (docs/architecture.md,
"Goals"). Who may call what: any turn may read; creating, editing, pausing and resuming need a
turn a person started; completing or blocking needs that or the admitted goal round itself
(blocked only after 3 rounds). Completing or blocking inside a goal round adds a wrap-up notice
to the same turn, so the model closes with a report instead of stopping abruptly."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import Field

from contract.content import TextBlock
from contract.goals import GoalRef
from host.engine.agent.goals.domain import Goal, GoalRejected
from host.engine.agent.goals.driver import GoalDriver, SessionGoals
from host.engine.tools.base import Tool, ToolContext, ToolOutput
from host.engine.tools.common import Args, BaseTool, ToolError

BLOCK_AFTER_ROUNDS = 3
AGENT_REQUIRED = "GOAL_TOOL_AGENT_REQUIRED"
AUTHORITY = "GOAL_TOOL_AUTHORITY_REQUIRED"
DRIVER_REQUIRED = "GOAL_TOOL_DRIVER_REQUIRED"
WRAP_UP = "tool-goal"


def _result(goals: SessionGoals) -> str:
    goal = goals.ledger.current
    if goal is None:
        return json.dumps({"goal": None})
    shown = {
        "id": goal.id,
        "revision": goal.revision,
        "objective": goal.objective,
        "phase": goal.phase,
        "roundsStarted": goal.rounds_started,
        "maxGoalRounds": goal.max_goal_rounds,
    }
    if goal.blocked_reason is not None:
        shown["blockedReason"] = goal.blocked_reason.dump()
    activation = "armed" if goals.ledger.armed else "disarmed"
    return json.dumps({"goal": shown, "activation": activation}, separators=(",", ":"), ensure_ascii=False)


class _GoalTool(BaseTool):
    def __init__(self, driver: GoalDriver) -> None:
        super().__init__()
        self.driver = driver

    async def _goals(self, ctx: ToolContext) -> SessionGoals:
        agent = self.driver.live(ctx.session_id)
        if agent is None or not agent.turn_open:
            raise ToolError(
                "Goal tools work only inside a turn of a live session.", "GOAL_TOOL_AGENT_REQUIRED"
            )
        return await self.driver.of(agent)

    def _human(self, goals: SessionGoals) -> bool:
        return self.driver.turn_sources.get(goals.agent.session_id) == "user"


class NoArgs(Args):
    pass


class GetGoal(_GoalTool):
    name = "get_goal"
    description = "Read the session's current goal (its id and revision are needed to update it)."
    Arguments = NoArgs

    async def execute(self, args: NoArgs, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(_result(await self._goals(ctx)))


class CreateArgs(Args):
    objective: str = Field(description="The long-running objective, stated so progress can be checked.")
    max_goal_rounds: int | None = Field(default=None, description="Round cap (default 256).")


class CreateGoal(_GoalTool):
    name = "create_goal"
    description = (
        "Set a goal the host keeps you working toward in automatic rounds. Only for long-running"
        " objectives the user asked for; never for a quick task."
    )
    Arguments = CreateArgs

    async def execute(self, args: CreateArgs, ctx: ToolContext) -> ToolOutput:
        goals = await self._goals(ctx)
        if not self._human(goals) or goals.agent.journal.header.origin is not None:
            raise ToolError("Only a turn the user started may create a goal.", AUTHORITY)
        cap = args.max_goal_rounds or None
        _mutate(self.driver, goals, lambda led, now: led.create(args.objective, cap, now))
        return ToolOutput(_result(goals))


class UpdateArgs(Args):
    goal_id: str
    revision: int
    action: Literal["edit", "pause", "resume", "complete", "blocked"]
    objective: str | None = None
    max_goal_rounds: int | None = None
    blocked_reason: str | None = Field(
        default=None, description="Required for blocked: the concrete blocker."
    )


class UpdateGoal(_GoalTool):
    name = "update_goal"
    description = (
        "Change the goal: read it first (get_goal) and copy its goal_id and revision. complete only"
        " when the objective is achieved and verified; blocked only when the same blocker persisted"
        " for several rounds; after a resume or fork the goal is disarmed: use resume when the user"
        " asks to continue."
    )
    Arguments = UpdateArgs

    async def execute(self, args: UpdateArgs, ctx: ToolContext) -> ToolOutput:
        goals = await self._goals(ctx)
        in_round = goals.running_round is not None and self.driver.turn_sources.get(ctx.session_id) == "goal"
        human = self._human(goals) and goals.agent.journal.header.origin is None
        objective, cap, reason = (
            args.objective or None,
            args.max_goal_rounds or None,
            args.blocked_reason or None,
        )
        if (objective is not None or cap is not None) and args.action != "edit":
            raise ToolError("objective and max_goal_rounds go only with edit.", "GOAL_TOOL_INVALID_UPDATE")
        if args.action == "blocked" and reason is None:
            raise ToolError("blocked needs blocked_reason.", "GOAL_TOOL_INVALID_UPDATE")
        if args.action in ("edit", "pause", "resume") and not human:
            raise ToolError(
                f"Only a turn the user started may {args.action} the goal.", "GOAL_TOOL_AUTHORITY_REQUIRED"
            )
        if args.action in ("complete", "blocked") and not (human or in_round):
            raise ToolError(
                "Only the user's turn or a goal round may end the goal.", "GOAL_TOOL_DRIVER_REQUIRED"
            )
        current = goals.ledger.current
        if args.action == "blocked" and in_round and not human and current is not None:
            if current.rounds_started < BLOCK_AFTER_ROUNDS:
                raise ToolError(
                    f"Report a blocker only after it persisted for {BLOCK_AFTER_ROUNDS} rounds.",
                    "GOAL_TOOL_BLOCK_THRESHOLD",
                )
        ref = GoalRef(id=args.goal_id, revision=max(1, args.revision))
        if args.action == "edit":
            _mutate(self.driver, goals, lambda led, now: led.edit(ref, objective, cap, now))
        elif args.action == "blocked":
            assert reason is not None
            _mutate(self.driver, goals, lambda led, now: led.block(ref, "model-reported", reason, now))
        else:
            verb = args.action
            _mutate(self.driver, goals, lambda led, now: getattr(led, verb)(ref, now))
        if in_round and args.action in ("complete", "blocked") and goals.ledger.current is not None:
            _wrap_up(goals, goals.ledger.current)
        return ToolOutput(_result(goals))


def _mutate(driver: GoalDriver, goals: SessionGoals, apply: object) -> None:
    try:
        driver.mutate(goals, apply)  # type: ignore[arg-type]
    except GoalRejected as exc:
        raise ToolError(str(exc), exc.goal_code) from None


def _wrap_up(goals: SessionGoals, goal: Goal) -> None:
    """One deferred notice in the same turn: report the outcome with evidence, call no tools."""
    objective = json.dumps(goal.objective, ensure_ascii=False)
    if goal.phase == "complete":
        tag, summary = "goal_complete", "The goal is complete."
        ask = "Report what was achieved, with the evidence from this session."
        extra = ""
    else:
        tag, summary = "goal_blocked", "The goal is blocked."
        reason = goal.blocked_reason.message if goal.blocked_reason else ""
        extra = f"Blocked: {json.dumps(reason, ensure_ascii=False)}\n"
        ask = "Report what was done, the concrete blocker, and what the user must provide."
    text = (
        f"<{tag}>\nObjective: {objective}\n{extra}{ask} Ground every claim in this session."
        f" Call no more tools.\n</{tag}>"
    )
    goals.agent.input.inject([TextBlock(text=text)], WRAP_UP, {"form": "notice", "summary": summary})


def goal_tools(driver: GoalDriver) -> dict[str, Tool]:
    tools: dict[str, Tool] = {}
    for cls in (GetGoal, CreateGoal, UpdateGoal):
        tool: Tool = cls(driver)  # type: ignore[assignment]  # class-level name/description satisfy Tool
        tools[tool.name] = tool
    return tools
