"""`/plan [off|message]`: a read-only planning mode until `/plan off`.

In plan mode the tools that change things (those that ask for approval) are not offered, and the
model is told why at its next step. `/plan <message>` also steers the message into the agent.
The mode is logged (`plan/mode`), so a resumed session keeps it.
"""

from __future__ import annotations

from contract.content import MessageSource, TextBlock
from host.engine.agent.commands.registry import Command, CommandContext, CommandResult, failure, success
from host.engine.sessions import events


async def plan(ctx: CommandContext) -> CommandResult:
    agent = ctx.agent
    composition = agent.composition
    argument = ctx.argument
    if argument.lower() == "off":
        if not composition.set_plan(False):
            return success("Plan mode is not on.")
        agent.journal.append(events.plan_mode(False))
        agent.publish_plan()
        when = "from the agent's next step" if agent.turn_open else "now"
        return success(f"Plan mode off {when}: the agent may change files and run commands again.")
    changed = composition.set_plan(True)
    if changed:
        agent.journal.append(events.plan_mode(True))
        agent.publish_plan()
    if argument:
        try:
            agent.input.steer([TextBlock(text=argument)], MessageSource(kind="user"))
        except Exception as exc:
            return failure(f"Plan mode is on, but the message was not delivered: {exc}")
    state = "Plan mode on" if changed else "Plan mode was already on"
    when = " from the agent's next step" if changed and agent.turn_open else ""
    sent = "; your message was sent to the agent" if argument else ""
    return success(f"{state}{when}: it researches and plans, and changes nothing until /plan off{sent}.")


PLAN = Command(
    name="plan",
    description="Plan first: the agent reads and proposes, and changes nothing until /plan off",
    run=plan,
    hint="[off|message]",
    available=lambda agent: agent.composition.can_write() or agent.composition.plan_active,
)
