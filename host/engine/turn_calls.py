"""Running one tool call of a turn: its arguments, the PreToolUse hooks, the permission decision
(asking the person when it says so), then the tool itself, between the folder's snapshots when it
may change files. Kept apart from the turn loop (host/engine/turn.py) so that each stays one job;
the turn logs `tool/call` and `tool/result` around it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

from contract.content import ToolCallBlock
from contract.filechange import FileChange
from host.engine.asking import Approvals
from host.engine.context import parse_arguments
from host.engine.events import NewEvent
from host.engine.hooks import tools as tool_hooks
from host.engine.journal import Journal
from host.engine.tools.base import Tool, ToolContext, ToolOutput
from host.engine.tools.common import argument_refusal
from host.engine.turn_parts import TurnServices


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

    async def _emit(self, new: NewEvent[Any]) -> None:
        self.journal.append(new)
