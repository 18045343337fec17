"""`/permission [preset]`: show the session's permission preset, or switch it.

A switch logs `permission/preset` and the knob events that changed (`sandbox/mode`,
`approval/policy`) and applies from the next tool call. The session's agent preset still caps
it: asking for more than the agent preset allows leaves the session at that ceiling, and says so.
A switch that lets more run without asking (`permissions/looseness.py`) is refused to a caller
without privilege (docs/decisions.md, "Loosening is privileged").
"""

from __future__ import annotations

from host.engine.agent.commands.registry import Command, CommandContext, CommandResult, failure, success
from host.engine.tools.permissions.looseness import loosens
from host.engine.tools.permissions.modes import PRESETS, capped
from host.engine.tools.permissions.policy import PermissionService

WORDS = {"read-only": "read-only", "auto": "auto", "ask": "workspace-write", "full": "danger-full-access"}
"""What a person types, as the picker names the modes (`/permission ask`); the wire names
(`workspace-write`, `danger-full-access`) and the titles ("Full access") are taken too."""


def wanted_preset(word: str) -> str | None:
    """The mode `word` names, or None."""
    said = " ".join(word.strip().lower().replace("_", "-").split())
    if said in WORDS:
        return WORDS[said]
    if said in PRESETS:
        return said
    for p in PRESETS.values():
        if said in (p.title.lower(), p.title.lower().replace(" ", "-")):
            return p.name
    return None


def _available() -> str:
    return ", ".join(WORDS)


def loosening(ctx: CommandContext) -> str | None:
    """The change in words when `/permission <preset>` would let more run unasked."""
    wanted = wanted_preset(ctx.argument)
    if wanted is None:
        return None  # showing the preset, or a name the command refuses by itself
    policy = ctx.agent.policy
    before, after = policy.preset, capped(wanted, *policy.cap())
    if not loosens((before.name, before.approval), (after.name, after.approval)):
        return None
    return f"switching this session from {before.title} to {after.title}"


def permission_command(service: PermissionService) -> Command:
    async def run(ctx: CommandContext) -> CommandResult:
        agent = ctx.agent
        current = agent.policy.preset
        if not ctx.argument:
            return success(f"Permission mode: {current.title}. Available: {_available()}.")
        wanted = wanted_preset(ctx.argument)
        if wanted is None:
            return failure(f"Unknown permission mode {ctx.argument!r}. Available: {_available()}.")
        _, after = service.switch(agent.session_id, wanted)
        if after.name != wanted:
            cap = agent.composition.preset.name or agent.composition.preset.id
            return success(
                f"Permission mode {after.title}: the agent preset “{cap}” allows no more than"
                f" {after.title.lower()}"
            )
        return success(f"Permission mode {after.title}")

    return Command(
        name="permission",
        description="Show or switch what the agent may do here without asking",
        run=run,
        hint="read-only | auto | ask | full",
        loosens=loosening,
    )
