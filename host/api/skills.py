"""`skill.list`: the skills a person can invoke in a session (there is no invocation method:
`/name` in a prompt is the gesture)."""

from __future__ import annotations

from contract import skills as sk
from contract.methods import SKILL_LIST
from host.api.registry import implements
from host.engine.engine import Engine


@implements(SKILL_LIST)
async def list_skills(engine: Engine, p: sk.SkillListRequest) -> sk.SkillListValue:
    skills, warnings = await engine.presets.list_skills(p.session_id)
    return sk.SkillListValue(skills=skills, warnings=warnings)
