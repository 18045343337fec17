"""What one session runs with: its preset (tools, prompt, model), its project's instructions and
skills, and plan mode. A turn asks it, before every model request, for that step's setup.

`prepare` runs on a worker thread (it reads the disk: skill files, AGENTS.md); everything else is
cheap and runs on the loop. See docs/architecture.md, "Agent presets", "Skills" and "Project
instructions".
"""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contract.content import Message, MessageSource, TextBlock
from host.engine.presets.goal_mounting import mounted
from host.engine.presets.skills import (
    SKILL_TOOL,
    SkillCatalog,
    SkillRoot,
    SkillSet,
    SkillTool,
    catalogue,
    render,
)
from host.engine.presets.skills.invoke import skill_tokens
from host.engine.presets.spec import PresetSpec
from host.engine.sessions import events
from host.engine.sessions.project import Instructions, ProjectInstructions, project_root
from host.engine.tools.base import Tool
from host.engine.tools.task import TASK_TOOL

CATALOGUE_SOURCE = {"kind": "plugin", "plugin": "skills", "reminder": "catalogue"}
PLAN_SOURCE = {"kind": "plugin", "plugin": "plan-mode"}

PLAN_ON = (
    "<system-reminder>\nPlan mode is on. Research and plan only: read, list and search as needed, "
    "then present a concrete plan (files, changes, order, risks) and stop. Do not change files or "
    "run commands; those tools are unavailable until the user ends plan mode with /plan off.\n"
    "</system-reminder>"
)
PLAN_OFF = (
    "<system-reminder>\nPlan mode is off: you may change files and run commands again (with the "
    "user's approval where it is needed).\n</system-reminder>"
)

SkillRoots = Callable[[PresetSpec, Path], list[SkillRoot]]
"""The skill roots for a preset and a project root, lowest rank first."""

McpTools = Callable[[Path, Path], Awaitable[dict[str, Tool]]]
"""(project root, cwd) → the tools of the project's ready MCP servers (waits for start-up)."""


@dataclass(frozen=True)
class StepSetup:
    """What one model request uses: the tools offered, the system prompt, and the messages
    to add to the conversation first (catalogue, plan notice, invoked skills)."""

    tools: dict[str, Tool]
    system: str
    messages: list[Message] = field(default_factory=list)
    instructions: Instructions | None = None
    catalogue: str | None = None
    """A new skills catalogue for the model (None: the one it has is current)."""


def _message(text: str, source: dict[str, Any]) -> Message:
    return events.new_message("user", [TextBlock(text=text)], MessageSource.model_validate(source))


def _offered(tool: Tool) -> bool:
    """A tool that depends on something the person sets up (a search provider, a language
    server) says whether it is offered now (docs/architecture.md, "Tools")."""
    offered = getattr(tool, "offered", None)
    return bool(offered()) if callable(offered) else True


def last_catalogue(history: list[Message]) -> str | None:
    """The skills catalogue the model last saw (on resume, read back from the conversation)."""
    for message in reversed(history):
        meta = message.source.model_dump()
        if meta.get("plugin") == "skills" and meta.get("reminder") == "catalogue":
            return "".join(b.text for b in message.content if isinstance(b, TextBlock))
    return None


class Composition:
    def __init__(
        self,
        preset: PresetSpec,
        cwd: Path,
        all_tools: Callable[[], dict[str, Tool]],
        skill_roots: SkillRoots,
        catalog: SkillCatalog,
        default_system: str,
        *,
        plan_active: bool = False,
        catalogue_sent: str | None = None,
        delegates: bool = True,
        mcp_tools: McpTools | None = None,
    ) -> None:
        self.preset = preset
        self.cwd = cwd
        self.root = project_root(cwd)
        self.instructions = ProjectInstructions(self.root)
        self.plan_active = plan_active
        self._plan_notice: str | None = None
        self._all_tools = all_tools
        self._skill_roots = skill_roots
        self._catalog = catalog
        self._default_system = default_system
        self._catalogue_sent = catalogue_sent
        self.delegates = delegates
        """Whether the session may start subagents (`task`); a subagent may not."""
        self._mcp_tools = mcp_tools
        self._skill_tool: Tool = SkillTool(lambda: self.skills().skills)  # type: ignore[assignment]

    # ---- the preset ------------------------------------------------------------------------

    extra_tools: dict[str, Tool] = {}
    """Tools a mounted package adds for this session (the goal tools: docs/architecture.md, "Goals")."""

    def swap(self, preset: PresetSpec) -> None:
        """Run another preset from the next request on (a blank session's `agentPreset.select`);
        the goal tools go with a preset that does not mount them (the Chat preset has no tools)."""
        self.preset = preset
        if not mounted(preset.id):
            self.extra_tools = {}

    def can_write(self) -> bool:
        """Whether the preset offers any tool that changes things (plan mode means something)."""
        return any(t.needs_approval for t in self.preset_tools().values())

    def preset_tools(self) -> dict[str, Tool]:
        allowed = self.preset.tools
        return {
            n: t
            for n, t in self._all_tools().items()
            if (allowed is None or n in allowed) and (self.delegates or n != TASK_TOOL) and _offered(t)
        }

    def _mcp_allowed(self, name: str) -> bool:
        """A preset's allow-list names MCP tools by glob (`mcp__git__*`); no list allows all."""
        allowed = self.preset.tools
        return allowed is None or any(fnmatch.fnmatchcase(name, pattern) for pattern in allowed)

    # ---- plan mode -------------------------------------------------------------------------

    def set_plan(self, active: bool) -> bool:
        """Turn plan mode on or off; False when it already was. The model is told at the next
        step (the notice joins that step's messages)."""
        if active == self.plan_active:
            return False
        self.plan_active = active
        self._plan_notice = PLAN_ON if active else PLAN_OFF
        return True

    # ---- skills ----------------------------------------------------------------------------

    def skills(self) -> SkillSet:
        """The session's skills (reads the disk: call off the loop)."""
        return self._catalog.scan(self._skill_roots(self.preset, self.root))

    async def skill_set(self) -> SkillSet:
        return await asyncio.to_thread(self.skills)

    # ---- one step --------------------------------------------------------------------------

    async def prepare(self, claimed: list[Message]) -> StepSetup:
        """This step's setup; `claimed` are the messages the step takes in (for `/name`)."""
        setup = await asyncio.to_thread(self._prepare, claimed)
        if self._mcp_tools is not None and not self.plan_active:  # MCP tools all need approval
            offered = await self._mcp_tools(self.root, self.cwd)
            setup.tools.update({n: t for n, t in offered.items() if self._mcp_allowed(n)})
        context: list[Message] = []  # background first, the material to act on last
        if setup.catalogue is not None:
            context.append(_message(setup.catalogue, CATALOGUE_SOURCE))
            self._catalogue_sent = setup.catalogue
        if self._plan_notice is not None:  # read on the loop: /plan may have run meanwhile
            context.append(_message(self._plan_notice, PLAN_SOURCE))
            self._plan_notice = None
        setup.messages[:0] = context
        return setup

    def _prepare(self, claimed: list[Message]) -> StepSetup:
        skills = self.skills()
        tools = self.preset_tools()
        offered = self.preset.tools is None or SKILL_TOOL in self.preset.tools
        model_skills = skills.model_invocable() if offered else []
        if model_skills:
            tools[SKILL_TOOL] = self._skill_tool
        tools.update(self.extra_tools)
        if self.plan_active:
            tools = {n: t for n, t in tools.items() if not t.needs_approval}
        text = None
        if offered and (model_skills or self._catalogue_sent is not None):
            text = catalogue(model_skills)
            if text == self._catalogue_sent:
                text = None
        invoked: list[Message] = []
        for name in skill_tokens(claimed):
            skill = skills.skills.get(name)
            if skill is not None and skill.user_invocable:
                source = {"kind": "skill-invocation", "name": skill.name, "form": "instructions"}
                invoked.append(_message(render(skill), source))
        instructions = self.instructions.current()
        return StepSetup(
            tools=tools,
            system=self.system_prompt(instructions),
            messages=invoked,
            instructions=instructions,
            catalogue=text,
        )

    def system_prompt(self, instructions: Instructions | None) -> str:
        base = (self.preset.system or self._default_system).replace("{cwd}", str(self.cwd))
        if instructions is None:
            return base
        return f"{base}\n\n{instructions.prompt_section()}"
