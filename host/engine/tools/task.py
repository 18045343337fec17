"""The `task` tool: hand a self-contained piece of work to a subagent, a child session that runs
to its final answer (docs/architecture.md, "Subagents"). The engine does the work
(`host/engine/agent/subagents/service.py`); several calls in one step run at the same time."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.common import Args, BaseTool, ToolError

TASK_TOOL = "task"


class TaskArgs(Args):
    description: str = Field(
        min_length=1,
        max_length=120,
        description="A short name for the task (3 to 8 words), shown to the user.",
    )
    prompt: str = Field(
        min_length=1,
        description=(
            "The whole task for the subagent. It sees nothing of this conversation: say what to do, "
            "what you already know, and what to report back."
        ),
    )
    preset: str | None = Field(
        default=None,
        max_length=200,
        description="The agent preset the subagent runs (for example read-only); default: this session's.",
    )


class TaskTool(BaseTool):
    name = TASK_TOOL
    description = (
        "Delegate a self-contained task to a subagent: a new session in this folder that works on its "
        "own and returns its final answer as this tool's result. Use it for large or separable work "
        "(researching a question across many files, a focused change). Several task calls in one "
        "message run at the same time (up to 3 at once). Its approvals and questions reach the user."
    )
    parallel: ClassVar[bool] = True
    Arguments = TaskArgs

    async def execute(self, args: TaskArgs, ctx: ToolContext) -> ToolOutput:
        if ctx.subagents is None or ctx.call_id is None:
            raise ToolError("Subagents are not available here; do this task yourself.", "UNAVAILABLE")
        return await ctx.subagents.run_task(ctx.call_id, args.description, args.prompt, args.preset, ctx.emit)
