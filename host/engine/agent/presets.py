"""The engine's side of presets, skills and commands: rosters, a session's composition, select.

The engine owns one `PresetService`; the `engine.presets` service (host/engine/services/presets.py) is its
public face. Disk work (the roster, skill files) runs on worker threads.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from contract.content import Message
from contract.frames import HostAgentError, HostCommandsChanged, HostSessionPresetChanged
from contract.presets import AgentPresetEntry
from host.engine.agent.commands import CommandRegistry
from host.engine.agent.commands.compact import COMPACT
from host.engine.agent.commands.plan import PLAN
from host.engine.errors import AgentPresetConflict, AgentPresetLocked
from host.engine.presets.composition import Composition, McpTools, last_catalogue
from host.engine.presets.prompt_texts import DEFAULT_SYSTEM
from host.engine.presets.roster import FALLBACK_DEFAULT, PresetRoster
from host.engine.presets.skills import SKILL_TOOL, SkillCatalog, SkillRoot
from host.engine.presets.spec import PresetSpec
from host.engine.sessions import events
from host.engine.sessions.bus import Bus
from host.engine.store import SessionHeader, Store
from host.engine.tools import TOOL_CLASSES
from host.engine.tools.base import Tool

if TYPE_CHECKING:
    from host.engine.agent.agent import Agent

log = logging.getLogger(__name__)


class PresetService:
    def __init__(
        self,
        data_dir: Path,
        store: Store,
        bus: Bus,
        tools: dict[str, Tool],
        configured_default: Callable[[], str | None] = lambda: None,
        home: Path | None = None,
        mcp_tools: McpTools | None = None,
    ) -> None:
        self._store = store
        self._bus = bus
        self._tools = tools
        self._data_dir = Path(data_dir)
        self._home = home or Path.home()
        known = {c.name for c in TOOL_CLASSES} | set(tools) | {SKILL_TOOL}
        self.roster = PresetRoster.for_data_dir(self._data_dir, lambda: known, configured_default)
        self.catalog = SkillCatalog()
        self.commands = CommandRegistry(on_change=self._commands_changed)
        self.commands.register(PLAN)
        self.commands.register(COMPACT)
        self._locks: dict[str, asyncio.Lock] = {}
        self.mcp_tools = mcp_tools
        """The MCP tools a session's project offers."""
        self.requested_at_create: set[str] = set()
        """Sessions whose creator named their agent preset (in this run of the host)."""

    def _commands_changed(self) -> None:
        self._bus.publish("host", HostCommandsChanged())

    # ---- roots -----------------------------------------------------------------------------

    def skill_roots(self, preset: PresetSpec, project: Path) -> list[SkillRoot]:
        """Lower rank wins a name: the preset's own, the project's, then the user's."""
        return [
            SkillRoot(0, "preset", preset.skills_dir),
            SkillRoot(100, "project", project / ".harnessdesk" / "skills"),
            SkillRoot(200, "project-agents", project / ".agents" / "skills"),
            SkillRoot(250, "project-claude", project / ".claude" / "skills"),
            SkillRoot(400, "user", self._data_dir / "skills"),
            SkillRoot(500, "user-agents", self._home / ".agents" / "skills"),
        ]

    # ---- the roster ------------------------------------------------------------------------

    async def entries(self) -> list[AgentPresetEntry]:
        return await asyncio.to_thread(self.roster.entries)

    async def resolve(self, requested: str | None, session_id: str | None = None) -> str:
        """The preset a new session runs: the requested one (which must exist and not be
        broken), else the default. A requested one is remembered as the caller's choice."""
        if requested is None:
            return await asyncio.to_thread(self.roster.default_id)
        chosen = (await asyncio.to_thread(self.roster.runnable, requested)).id
        if session_id is not None:
            self.requested_at_create.add(session_id)
        return chosen

    @staticmethod
    def check_adopt(header: SessionHeader, requested: str | None, running: str | None) -> None:
        """`session.create` with a preallocated id that exists: it must run the requested preset."""
        if requested is not None and running != requested:
            raise AgentPresetConflict(header.id, requested, running)

    # ---- a session's composition -------------------------------------------------------------

    async def compose(self, header: SessionHeader, history: list[Message], cwd: Path) -> Composition:
        """The composition a resumed session runs: its recorded preset (never the current
        default), or the shipped default when that preset is gone or broken."""
        wanted = header.agent_preset or FALLBACK_DEFAULT
        spec = await asyncio.to_thread(self.roster.get, wanted)
        if spec is None or spec.broken is not None:
            why = "is gone" if spec is None else f"is broken ({spec.broken})"
            log.warning("session %s: preset %r %s; running %r", header.id, wanted, why, FALLBACK_DEFAULT)
            message = f"The preset {wanted!r} this session ran {why}; it runs {FALLBACK_DEFAULT!r} now."
            self._bus.publish("host", HostAgentError(session_id=header.id, message=message))
            spec = await asyncio.to_thread(self.roster.runnable, FALLBACK_DEFAULT)
        marks = await self._store.events_of_types(header.id, ("plan/mode",))
        plan_active = bool(marks and marks[-1].data.get("active"))
        return Composition(
            spec,
            cwd,
            lambda: self._tools,
            self.skill_roots,
            self.catalog,
            DEFAULT_SYSTEM,
            plan_active=plan_active,
            catalogue_sent=last_catalogue(history),
            delegates=header.origin != "subagent",
            mcp_tools=self.mcp_tools,
        )

    async def select(self, agent: Agent, requested: str) -> str:
        """Run another preset in a blank session; serialised per session, checked inside."""
        lock = self._locks.setdefault(agent.session_id, asyncio.Lock())
        async with lock:
            if agent.next_turn > 0 or agent.turn_open:
                raise AgentPresetLocked(agent.session_id, agent.composition.preset.id)
            spec = await asyncio.to_thread(self.roster.runnable, requested)
            if agent.next_turn > 0 or agent.turn_open:  # a turn started while the disk was read
                raise AgentPresetLocked(agent.session_id, agent.composition.preset.id)
            agent.composition.swap(spec)
            agent.journal.append(events.agent_preset_selected(spec.id))
            frame = HostSessionPresetChanged(session_id=agent.session_id, agent_preset=spec.id)
            self._bus.publish("host", frame)
            return spec.id
