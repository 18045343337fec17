"""What the model reads of a skill: the `<skill_content>` block and the skills catalogue.

The same block answers the `skill` tool and a person's `/name` gesture, so the model sees one
form whichever way a skill arrived (docs/architecture.md, "Skills").
"""

from __future__ import annotations

from html import escape

from host.engine.presets.skills.catalog import Skill

MAX_CATALOGUE_DESCRIPTION = 500


def render(skill: Skill) -> str:
    base = skill.base_dir
    if base is not None:
        guidance = (
            f"Base directory for this skill: {base}\n"
            "Relative paths in the instructions below are relative to that directory."
        )
    else:
        guidance = "This skill is a single file and has no bundled resources."
    guidance += "\nRead the skill's other files only when the instructions call for them."
    return (
        f'<skill_content name="{escape(skill.name, quote=True)}">\n'
        f"<skill_resources>\n{guidance}\n</skill_resources>\n\n"
        f"<skill_instructions>\n{skill.body}\n</skill_instructions>\n"
        "</skill_content>"
    )


def _clip(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= MAX_CATALOGUE_DESCRIPTION:
        return text
    return text[: MAX_CATALOGUE_DESCRIPTION - 1].rstrip() + "…"


def catalogue(skills: list[Skill]) -> str:
    """The `<system-reminder>` listing the skills the model may load with the `skill` tool."""
    if not skills:
        return (
            "<system-reminder>\nNo skills are available any more: do not call the skill tool.\n"
            "</system-reminder>"
        )
    lines = "\n".join(f"- `{s.name}`: {_clip(s.description)}" for s in skills)
    return (
        "<system-reminder>\n"
        "Skills are instructions for particular tasks. When a task matches one of the skills "
        "below, load it with the skill tool (argument: its name) before you start, then follow "
        "it. When a <skill_content> block is already in the conversation, follow it directly "
        "without calling the skill tool for it again.\n"
        f"<available_skills>\n{lines}\n</available_skills>\n"
        "</system-reminder>"
    )
