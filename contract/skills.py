"""The `skill.list` method: the skills a person can invoke in a session with `/name`.

There is no invocation RPC: `/name` in an ordinary prompt is the gesture (the host turns it into
the skill's instructions at the next step; `docs/architecture.md`, "Skills").
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from contract._base import WireModel

SKILL_NAME_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


class SkillEntry(WireModel):
    name: str = Field(min_length=1)
    description: str
    when_to_use: str | None = None
    model_invocable: bool


class SkillListRequest(WireModel):
    session_id: Annotated[str, Field(min_length=1, max_length=200)]


class SkillWarning(WireModel):
    """A skill file that was left out, and why (beyond the reference: a person who wrote a
    SKILL.md that does not show up is told what is wrong with it)."""

    source: str
    """Which root: `preset`, `project`, `project-agents`, `project-claude`, `user`, `user-agents`."""
    location: str
    """The file, relative to its root."""
    message: str


class SkillListValue(WireModel):
    skills: list[SkillEntry]
    """User-invocable skills only, sorted by name (code-point order)."""
    warnings: list[SkillWarning] = Field(default_factory=list)
