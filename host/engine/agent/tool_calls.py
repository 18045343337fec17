"""Running one tool call of a turn: its arguments, the PreToolUse hooks, the permission decision
(asking the person when it says so), then the tool itself, between the folder's snapshots when it
may change files. Kept apart from the turn loop (host/engine/agent/turn.py) so that each stays one job;
the turn logs `tool/call` and `tool/result` around it."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from contract.content import ToolCallBlock
from contract.filechange import FileChange
from host.engine.agent.approvals import Approvals
from host.engine.agent.turn_inputs import TurnServices
from host.engine.integrations.hooks import tools as tool_hooks
from host.engine.presets.prompt_texts import parse_arguments
from host.engine.sessions.events import NewEvent
from host.engine.sessions.journal import Journal
from host.engine.tools.base import Tool, ToolContext, ToolOutput
from host.engine.tools.common import argument_refusal

READ_ONLY = "Read-only file system"
_FAILED_PATH = re.compile(
    "(?:'([^']+)'|\u2018([^\u2019]+)\u2019|\u201c([^\u201d]+)\u201d|\"([^\"]+)\"|([^\\s'\"]+)): " + READ_ONLY
)
"""The path just before ": Read-only file system", quoted (coreutils, ASCII or typographic) or bare
(bash: `bash: line 1: ../x: Read-only file system`)."""


def wrote_outside(name: str, args: dict[str, Any], ctx: ToolContext, output: ToolOutput) -> bool:
    """Whether a foreground bash command in a writable sandbox failed on a write outside its
    folder (the sandbox's "Read-only file system" naming a path there, links resolved; a
    protected entry inside the folder never counts)."""
    policy = ctx.sandbox
    if name != "bash" or policy is None or not policy.write or args.get("run_in_background"):
        return False
    text = output.content
    if READ_ONLY not in text or "[exit code:" not in text:
        return False
    root = os.path.realpath(policy.workspace)
    for match in _FAILED_PATH.finditer(text):
        named = next(group for group in match.groups() if group)
        path = os.path.realpath(os.path.join(ctx.cwd, named))
        if path != root and not path.startswith(root + os.sep):
            return True
    return False


class CallRunner:
    """Runs the calls of one turn; a call's failure is its error result, never the turn's."""

    def __init__(
        self,
        services: TurnServices,
        journal: Journal,
        approvals: Approvals,
        number: int,
        cancelled: Callable[[], bool],
    ) -> None:
        self.services = services
        self.journal = journal
        self.approvals = approvals
        self.number = number
        self.cancelled = cancelled
        """True once the turn was cancelled (a cancel then propagates, it is not the call's)."""
        self.unfinished_changes: dict[str, list[FileChange]] = {}
        """callId → what a call cancelled mid-run had changed (its error result records it)."""

    async def execute(self, call: ToolCallBlock, tool: Tool | None) -> ToolOutput:
        services = self.services
        if tool is None:
            return ToolOutput(f"No tool {call.name!r} is available in this step.", True, "UNKNOWN_TOOL")
        args, problem = parse_arguments(call.arguments, tool.parameters)
        if args is None:
            return ToolOutput(f"Bad arguments: {problem}", True, "BAD_ARGUMENTS")
        refused = argument_refusal(tool, args)  # before the hooks and the gate read a path in them
        if refused is not None:
            return refused
        hooked = await tool_hooks.before(
            services.hooks,
            services.session_id,
            services.cwd,
            self.number,
            self.journal.append,
            call.id,
            call.name,
            args,
        )
        if hooked.verdict == "deny":
            return tool_hooks.denied(hooked)
        decision = services.policy.decide(tool, call.name, args)
        decision = tool_hooks.forced(hooked, decision, tool, call.name, args, services.cwd)
        if decision.verdict == "deny":
            return ToolOutput(decision.message, True, "PERMISSION_DENIED")
        if decision.verdict == "ask":
            why = hooked.reason if hooked.verdict == "ask" else None
            answer = await self.approvals.ask(call, tool, args, decision.scope, why)
            if not answer.allowed:
                return answer.refusal()
        ctx = ToolContext(
            session_id=services.session_id,
            cwd=services.cwd,
            ask_user=services.ask_user,
            emit=self._emit,
            jobs=services.jobs,
            checkpoint=partial(services.checkpoint, self.number),
            subagents=services.subagents,
            call_id=call.id,
            sandbox=services.policy.sandbox_for(call.name, args),
        )
        output = await self._run(call, tool, args, ctx)
        if wrote_outside(call.name, args, ctx, output):
            return await self._offer_outside(call, tool, args, ctx, output)
        return output

    async def _run(
        self, call: ToolCallBlock, tool: Tool, args: dict[str, Any], ctx: ToolContext
    ) -> ToolOutput:
        services = self.services
        run = partial(tool.run, args, ctx)
        try:
            if services.watch is not None:
                keep = partial(self.unfinished_changes.__setitem__, call.id)
                return await services.watch(self.number, tool, run, keep)
            return await run()
        except asyncio.CancelledError:
            if self.cancelled():
                raise
            return ToolOutput("The question was cancelled.", True, "CANCELLED")
        except Exception as exc:
            return ToolOutput(f"The tool failed: {exc}", True, "TOOL_FAILED")

    async def _offer_outside(
        self, call: ToolCallBlock, tool: Tool, args: dict[str, Any], ctx: ToolContext, failed: ToolOutput
    ) -> ToolOutput:
        """A sandboxed command failed writing outside the folder: ask the person, as Auto
        promises ("going outside asks"), whether to run it again without the sandbox
        (docs/decisions.md, "Sandbox and the four modes")."""
        outside = {**args, "outside_sandbox": True}
        answer = await self.approvals.ask(call, tool, outside, "", None)
        if not answer.allowed:
            refused = answer.refusal()
            return replace(failed, content=f"{failed.content}\n[{refused.content}]")
        again = await self._run(call, tool, outside, replace(ctx, sandbox=None))
        note = "[it failed inside the sandbox writing outside the folder; the user let it run again outside]"
        return replace(again, content=f"{note}\n{again.content}")

    async def _emit(self, new: NewEvent[Any]) -> None:
        self.journal.append(new)
