"""What the services share (not a service itself): the session lookups every door method starts
with, the agent pool behind `attach`, the model a session runs, and the shutdown flag."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from contract.content import ContentBlock
from contract.frames import HostSessionAdded
from contract.sessions import ModelSelection, PromptContent
from host.engine.agent.agent import Agent
from host.engine.agent.pending import PendingTable
from host.engine.agent.pool import AgentPool
from host.engine.errors import AgentBusy, SessionNotFound
from host.engine.llm.registry import AdapterRegistry
from host.engine.llm.windows import default_window
from host.engine.sessions.bus import Bus
from host.engine.sessions.journal import Journal
from host.engine.sessions.media import prompt_blocks
from host.engine.settings.selection import Selections
from host.engine.store import SessionHeader, Store


class Core:
    """Built first by `Engine.open()`. `pool` answers the agent pool, which is built from this
    core's `current_selection` and `context_window` (so it is reached through a callable)."""

    def __init__(
        self,
        data_dir: Path,
        store: Store,
        bus: Bus,
        pending: PendingTable,
        registry: AdapterRegistry,
        selections: Selections,
        default_cwd: str,
        pool: Callable[[], AgentPool],
    ) -> None:
        self.data_dir = data_dir
        self.store = store
        self.bus = bus
        self.pending = pending
        self.registry = registry
        self.selections = selections
        self.default_cwd = default_cwd
        self._pool = pool
        self.closed = False

    @property
    def pool(self) -> AgentPool:
        return self._pool()

    async def header(self, session_id: str) -> SessionHeader:
        """The session's header; SessionNotFound when there is none."""
        header = await self.store.header(session_id)
        if header is None:
            raise SessionNotFound(session_id)
        return header

    def check_open(self) -> None:
        if self.closed:
            raise AgentBusy("the host is shutting down")

    async def attach(self, session_id: str) -> Agent:
        """The session's agent, resuming a cold session (concurrent resumes share one load)."""
        self.check_open()
        return await self.pool.attach(session_id)

    def announce(self, header: SessionHeader) -> None:
        added = HostSessionAdded(
            session_id=header.id,
            blank=header.blank,
            parent_session_id=header.parent_session,
            cwd=header.cwd,
            agent_preset=header.agent_preset,
            origin=header.origin,
        )
        self.bus.publish("host", added)

    def blocks(self, content: list[PromptContent]) -> list[ContentBlock]:
        return prompt_blocks(content, self.store.put_attachment)

    def preset_model(self, session_id: str) -> dict[str, Any] | None:
        """The model the running preset names (a default until the log records a model)."""
        agent = self.pool.get(session_id)
        model = agent.composition.preset.model if agent is not None else None
        return model.model_dump(by_alias=True) if model is not None else None

    def current_selection(
        self, session_id: str, journal: Journal | None = None, header: SessionHeader | None = None
    ) -> ModelSelection:
        """In-process choice, else the newest request/header in the log, else the host default."""
        logged = journal.model if journal is not None else (header.model if header else None)
        if logged is None:  # nothing asked yet: the preset's model, if it names one
            logged = self.preset_model(session_id)
        return self.selections.current(session_id, logged)

    def context_window(self, selection: ModelSelection) -> int:
        """Tokens the model holds: the configured value (the model's `contextWindow` setting, the
        built-in model's context size) when there is one, else the built-in table
        (docs/decisions.md, "Long sessions")."""
        window = self.registry.context_window(selection.provider, selection.model)
        return window or default_window(selection.provider, selection.model)
