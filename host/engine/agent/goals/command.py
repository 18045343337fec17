"""`/goal [<objective>|clear|edit <objective>|pause|resume]`: set or view the session's goal
(docs/architecture.md, "Goals"). The whole trimmed input decides; anything that is not a verb
(`pause after tests`) is a new objective. `/goal` creates take the default round cap."""

from __future__ import annotations

import re

from host.engine.agent.commands.registry import Command, CommandContext, CommandResult, failure, success
from host.engine.agent.goals.domain import Goal, GoalLedger, GoalRejected
from host.engine.agent.goals.driver import GoalDriver
from host.engine.presets.goal_mounting import mounted

USAGE = "Usage: /goal <objective> | /goal edit <objective> | /goal pause | /goal resume | /goal clear"
REJECTED = "That is not valid for the goal's current state; run /goal to see it."
EDIT = re.compile(r"^edit\s+(.+)$", re.IGNORECASE | re.DOTALL)


def card(title: str, goal: Goal, armed: bool) -> str:
    lines = [title, f"Status: {goal.phase}"]
    if goal.blocked_reason is not None:
        lines.append(f"Blocker: {goal.blocked_reason.code}: {goal.blocked_reason.message}")
    lines += [
        f"Objective: {goal.objective}",
        f"Rounds: {goal.rounds_started}/{goal.max_goal_rounds}",
        f"Activation: {'armed' if armed else 'disarmed'}",
        "",
        "Commands:",
    ]
    if goal.phase == "complete":
        lines += ["/goal <new objective>", "/goal clear"]
    elif goal.phase == "active" and armed:
        lines += ["/goal edit <objective>", "/goal pause", "/goal clear"]
    else:
        lines += ["/goal edit <objective>", "/goal resume", "/goal clear"]
    return "\n".join(lines)


def goal_command(driver: GoalDriver) -> Command:
    async def run(ctx: CommandContext) -> CommandResult:
        goals = await driver.of(ctx.agent)
        ledger: GoalLedger = goals.ledger
        text = ctx.argument
        verb = text.lower()
        goal = ledger.current
        try:
            if not text:
                if goal is None:
                    return success(f"No goal is currently set.\n{USAGE}")
                return success(card("Goal", goal, ledger.armed))
            if verb in ("clear", "pause", "resume"):
                if goal is None:
                    return (
                        success("No goal is set: nothing to clear.") if verb == "clear" else failure(REJECTED)
                    )
                ref = goal.ref
                driver.mutate(goals, lambda led, now: getattr(led, verb)(ref, now))
                if verb == "clear":
                    return success("Goal cleared.")
                assert ledger.current is not None
                title = "Goal paused" if verb == "pause" else "Goal resumed"
                return success(card(title, ledger.current, ledger.armed))
            if verb == "edit":
                return failure(f"A replacement objective is required.\n{USAGE}")
            edit = EDIT.match(text)
            if edit is not None and goal is not None and goal.phase != "complete":
                ref, objective = goal.ref, edit.group(1)
                driver.mutate(goals, lambda led, now: led.edit(ref, objective, None, now))
                assert ledger.current is not None
                return success(card("Goal updated", ledger.current, ledger.armed))
            if edit is not None and goal is None:
                return failure(f"No goal is set to edit.\n{USAGE}")
            objective = edit.group(1) if edit is not None else text
            if goal is not None and goal.phase != "complete":
                return failure(
                    "A goal is already set: edit it with /goal edit <objective>, or /goal clear first."
                )
            driver.mutate(goals, lambda led, now: led.create(objective, None, now))
            assert ledger.current is not None
            return success(card("Goal created", ledger.current, ledger.armed))
        except GoalRejected:
            return failure(REJECTED)

    return Command(
        name="goal",
        description="set or view the goal for a long-running task",
        run=run,
        hint="[<objective>|clear|edit <objective>|pause|resume]",
        available=lambda agent: (
            mounted(agent.composition.preset.id) and agent.journal.header.origin != "subagent"
        ),
    )
