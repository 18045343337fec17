"""Skills: SKILL.md instructions a person invokes with `/name` or the model loads with `skill`."""

from host.engine.presets.skills.catalog import Skill, SkillCatalog, SkillRoot, SkillSet
from host.engine.presets.skills.invoke import skill_tokens
from host.engine.presets.skills.render import catalogue, render
from host.engine.presets.skills.tool import SKILL_TOOL, SkillTool

__all__ = [
    "SKILL_TOOL",
    "Skill",
    "SkillCatalog",
    "SkillRoot",
    "SkillSet",
    "SkillTool",
    "catalogue",
    "render",
    "skill_tokens",
]
