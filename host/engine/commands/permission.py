"""`/permission [preset]`: show the session's permission preset, or switch it.

A switch logs `permission/preset` and the knob events that changed (`sandbox/mode`,
`approval/policy`) and applies from the next tool call. The session's agent preset still caps
it: asking for more than the agent preset allows leaves the session at that ceiling, and says so.
A switch that lets more run without asking (`permissions/looseness.py`) is refused to a caller
without privilege (docs/decisions.md, "Loosening is privileged").
"""

from __future__ import annotations

from host.engine.commands.registry import Command, CommandContext, CommandResult, failure, success
from host.engine.permissions.looseness import loosens
from host.engine.permissions.policy import PermissionService
from host.engine.permissions.presets import PRESETS, capped


def _available() -> str:
    return ", ".join(f"{p.name} ({p.title})" for p in PRESETS.values())


def loosening(ctx: CommandContext) -> str | None:
    """The change in words when `/permission <preset>` would let more run unasked."""
    wanted = ctx.argument
    if wanted not in PRESETS:
        return None  # showing the preset, or a name the command refuses by itself
    policy = ctx.agent.policy
    before, after = policy.preset, capped(wanted, *policy.cap())
    if not loosens((before.name, before.approval), (after.name, after.approval)):
        return None
    return f"switching this session from {before.name} to {after.name}"


def permission_command(service: PermissionService) -> Command:
    async def run(ctx: CommandContext) -> CommandResult:
        agent = ctx.agent
        current = agent.policy.preset
        wanted = ctx.argument
        if not wanted:
            return success(f"Permission preset: {current.name} ({current.title}). Available: {_available()}.")
        if wanted not in PRESETS:
            return failure(f"Unknown permission preset {wanted!r}. Available: {_available()}.")
        _, after = service.switch(agent.session_id, wanted)
        if after.name != wanted:
            cap = agent.composition.preset.name or agent.composition.preset.id
            return success(
                f"preset {after.name}: the agent preset “{cap}” allows no more than {after.title.lower()}"
            )
        return success(f"preset {after.name}")

    return Command(
        name="permission",
        description="Show or switch what the agent may do here without asking",
        run=run,
        hint="<preset>",
        loosens=loosening,
    )
