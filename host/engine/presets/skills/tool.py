"""The `skill` tool: the model loads a skill's instructions by name (model-invocable skills only).

One instance per session, bound to that session's skill lookup (its preset and project roots).
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import Field

from host.engine.presets.skills.catalog import Skill
from host.engine.presets.skills.render import render
from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.common import Args, BaseTool, ToolError
from host.workers import TOOL_WORKERS

SKILL_TOOL = "skill"


class SkillArgs(Args):
    name: str = Field(
        min_length=1, max_length=100, description="The skill's name, as listed in <available_skills>."
    )


class SkillTool(BaseTool):
    name = SKILL_TOOL
    description = (
        "Load a skill: instructions for a particular kind of task, listed in <available_skills>. "
        "Call it with the skill's name before starting such a task, then follow what it returns."
    )
    Arguments = SkillArgs

    def __init__(self, lookup: Callable[[], dict[str, Skill]]) -> None:
        super().__init__()
        self._lookup = lookup

    async def execute(self, args: SkillArgs, ctx: ToolContext) -> ToolOutput:
        skills = await TOOL_WORKERS.run(self._lookup)  # scans project folders: tool work
        skill = skills.get(args.name)
        if skill is None or not skill.model_invocable:
            names = ", ".join(sorted(n for n, s in skills.items() if s.model_invocable)) or "none"
            raise ToolError(
                f"No skill named {args.name!r} is available (available: {names}).", "UNKNOWN_SKILL"
            )
        return ToolOutput(render(skill))
