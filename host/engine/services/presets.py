"""`engine.presets`: agent presets, skills and commands (the work is in
`host/engine/agent/presets.py`, `host/engine/presets/skills/` and `host/engine/agent/commands/`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from contract.commands import CommandDescriptor
from contract.presets import PresetListValue, PresetReadValue
from contract.skills import SkillEntry, SkillWarning
from host.engine.agent.commands import execute
from host.engine.agent.pool import AgentPool
from host.engine.agent.presets import PresetService
from host.engine.errors import PrivilegeRequired
from host.engine.presets.roster import FALLBACK_DEFAULT, PresetRoster
from host.engine.sessions.lookup import Header
from host.engine.sessions.project import ProjectInstructions, instructions_view, project_root
from host.engine.settings.configuration import CHAT_PRESET, ConfigPlane
from host.engine.store import SessionHeader, Store
from host.engine.tools.permissions.looseness import loosens
from host.engine.tools.permissions.modes import capped
from host.engine.tools.permissions.policy import PermissionService
from host.engine.workspaces.folders import HostFolders, can_open_path


async def preset_cap(store: Store, roster: PresetRoster, session_id: str) -> tuple[str | None, str | None]:
    """The (sandbox, approval) of the agent preset a session records (it can only tighten the
    session's permission preset)."""
    header = await store.header(session_id)
    name = header.agent_preset if header is not None else None
    spec = await asyncio.to_thread(roster.get, name) if name else None
    return (spec.sandbox, spec.approval) if spec is not None else (None, None)


class Presets:
    """Agent presets (list, select, read, copy, open, remove), skills and slash commands."""

    def __init__(
        self,
        pool: AgentPool,
        store: Store,
        header: Header,
        default_cwd: str,
        service: PresetService,
        permissions: PermissionService,
        plane: ConfigPlane,
        folders: HostFolders,
    ) -> None:
        self._pool = pool
        self._store = store
        self._header = header
        self._default_cwd = default_cwd
        self.service = service
        """The presets, skills and commands themselves (what a session's composition reads)."""
        self._permissions = permissions
        self._plane = plane
        self._folders = folders

    # ---- agent presets ---------------------------------------------------------------------

    async def list_presets(self) -> PresetListValue:
        entries = await self.service.entries()
        return PresetListValue(
            presets=entries,
            authorable=self.service.roster.user_root is not None,
            has_document=can_open_path(),
        )

    async def session_preset(self, session_id: str) -> str | None:
        """The preset a session runs: its agent's, else the one recorded for it."""
        agent = self._pool.get(session_id)
        if agent is not None:
            return agent.composition.preset.id
        return (await self._header(session_id)).agent_preset

    async def select_preset(self, session_id: str, agent_preset: str, privileged: bool = True) -> str:
        """`privileged`: whether the caller may loosen permissions — an agent preset that caps
        less than the current one lets more run unasked (`PrivilegeRequired` if not)."""
        agent = await self._pool.attach(session_id)
        if not privileged:
            spec = await asyncio.to_thread(self.service.roster.get, agent_preset)
            if spec is not None:
                before = agent.policy.preset
                after = capped(agent.policy.pinned.name, spec.sandbox, spec.approval)
                if loosens((before.name, before.approval), (after.name, after.approval)):
                    change = f"the agent preset {agent_preset} runs with {after.name}, not {before.name}"
                    raise PrivilegeRequired("agentPreset.select", change)
        chosen = await self.service.select(agent, agent_preset)
        self._permissions.refresh(session_id)  # a preset may make the session stricter
        return chosen

    async def follow_model(self, session_id: str, provider: str) -> None:
        """After `session.selectModel`: a blank session the host started on the Chat preset only
        because its model could not use tools (docs/decisions.md, "Offline agent") runs the
        default agent preset once a model that can is chosen. A session whose person chose Chat
        — picked it, named it at creation, or set it as the default — keeps it."""
        agent = await self._pool.attach(session_id)
        if agent.next_turn > 0 or agent.turn_open:
            return
        if agent.composition.preset.id != CHAT_PRESET or session_id in self.service.requested_at_create:
            return
        if self._plane.chosen_agent_preset() is not None or not self._plane.model_acts(provider):
            return
        await self._store.flush()
        if await self._store.events_of_types(session_id, ("agent-preset/selected",)):
            return
        target = self._plane.acting_agent_preset()
        if target != CHAT_PRESET:
            await self.select_preset(session_id, target)

    async def read_preset(self, agent_preset: str) -> PresetReadValue:
        spec, content = await asyncio.to_thread(self.service.roster.read, agent_preset)
        return PresetReadValue(
            agent_preset=spec.id,
            trust=spec.trust,
            content=content,
            name=spec.name,
            description=spec.description,
        )

    async def copy_preset(self, source: str, agent_preset: str, name: str | None) -> str:
        return await asyncio.to_thread(self.service.roster.copy, source, agent_preset, name)

    async def open_preset(self, agent_preset: str) -> tuple[bool, Path]:
        """(opened in the file manager, the preset's folder); shipped presets are refused. A host
        that cannot reach a desktop answers the folder for the user to open by hand."""
        spec = await asyncio.to_thread(self.service.roster.writable_directory, agent_preset)
        if not can_open_path():
            return False, spec.directory
        await self._folders.open(str(spec.directory))
        return True, spec.directory

    async def remove_preset(self, agent_preset: str) -> None:
        """Delete a user preset; sessions running it keep it until they close, and a user default
        that named it is unset."""
        await asyncio.to_thread(self.service.roster.remove, agent_preset)
        await self._plane.forget_agent_preset(agent_preset)

    async def preset_projections(self, session_id: str, header: SessionHeader | None) -> dict[str, Any]:
        """For a history tail page: `instructions` (the project file in the prompt) and `plan`,
        each only when it says something (no file; plan mode off)."""
        agent = self._pool.get(session_id)
        if agent is not None:
            found = await asyncio.to_thread(agent.composition.instructions.current)
            planning = agent.composition.plan_active
        else:
            cwd = Path(header.cwd if header is not None and header.cwd else self._default_cwd)
            found = await asyncio.to_thread(lambda: ProjectInstructions(project_root(cwd)).current())
            marks = await self._store.events_of_types(session_id, ("plan/mode",))
            planning = bool(marks and marks[-1].data.get("active"))
        out: dict[str, Any] = {}
        if found is not None:
            out["instructions"] = instructions_view(found)
        if planning:
            out["plan"] = {"active": True}
        return out

    # ---- skills and commands ---------------------------------------------------------------

    async def list_skills(self, session_id: str) -> tuple[list[SkillEntry], list[SkillWarning]]:
        """The skills a person can invoke in the session; a cold session is not resumed (its
        recorded preset and folder decide)."""
        agent = self._pool.get(session_id)
        if agent is not None:
            found = await agent.composition.skill_set()
        else:
            header = await self._header(session_id)
            spec = await asyncio.to_thread(self.service.roster.get, header.agent_preset or "")
            if spec is None or spec.broken is not None:
                spec = await asyncio.to_thread(self.service.roster.runnable, FALLBACK_DEFAULT)
            root = await asyncio.to_thread(project_root, Path(header.cwd or self._default_cwd))
            found = await asyncio.to_thread(self.service.catalog.scan, self.service.skill_roots(spec, root))
        return [s.entry() for s in found.user_invocable()], found.warnings

    async def list_commands(self, session_id: str) -> list[CommandDescriptor]:
        agent = await self._pool.attach(session_id)
        return [c.descriptor() for c in self.service.commands.catalogue(agent)]

    async def execute_command(self, session_id: str, line: str, privileged: bool = True) -> str | None:
        """The command id when `line` runs a command of the session, else None (nothing logged).
        `privileged`: whether the caller may loosen permissions (`PrivilegeRequired` if not)."""
        return await execute(self.service.commands, await self._pool.attach(session_id), line, privileged)
