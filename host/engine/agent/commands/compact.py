"""`/compact`: summarise the conversation now, so the next requests carry the summary instead
of the earlier messages (docs/architecture.md, "Compaction")."""

from __future__ import annotations

from host.engine.agent.commands.registry import Command, CommandContext, CommandResult, failure, success
from host.engine.agent.compaction import Compacted, CompactionFailed, describe

REFUSED = {
    "busy": "The agent is working; run /compact when it is idle.",
    "cancelled": "The compaction was cancelled; nothing changed.",
}


async def compact(ctx: CommandContext) -> CommandResult:
    if ctx.argument:
        return failure("Usage: /compact (no arguments)")
    outcome = await ctx.agent.compact(ctx.command_id or None)
    if isinstance(outcome, Compacted):
        return success(describe(outcome), outcome.summary_seq)
    if isinstance(outcome, CompactionFailed):
        return failure(REFUSED.get(outcome.reason) or f"{describe(outcome)} Nothing changed.")
    return success(describe(outcome))


COMPACT = Command(
    name="compact",
    description="Summarise the conversation so far; the agent continues from the summary",
    run=compact,
)
