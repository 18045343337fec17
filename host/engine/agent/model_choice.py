"""The model a session runs and how many tokens it holds: the in-process choice, else the newest
request/header in the session's log, else the running preset's model, else the host default
(docs/architecture.md, "The engine")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contract.sessions import ModelSelection
from host.engine.agent.agent import Agent
from host.engine.llm.registry import AdapterRegistry
from host.engine.llm.windows import default_window
from host.engine.sessions.journal import Journal
from host.engine.settings.selection import Selections
from host.engine.store import SessionHeader

CurrentSelection = Callable[[str, "Journal | None", "SessionHeader | None"], ModelSelection]
"""`current(session_id, journal=None, header=None)` of a `ModelChoice`."""


class ModelChoice:
    """Built before the agent pool: it looks attached agents up in the pool's map (`live`)."""

    def __init__(
        self, selections: Selections, registry: AdapterRegistry, live: Callable[[str], Agent | None]
    ) -> None:
        self._selections = selections
        self._registry = registry
        self._live = live

    def preset_model(self, session_id: str) -> dict[str, Any] | None:
        """The model the running preset names (a default until the log records a model)."""
        agent = self._live(session_id)
        model = agent.composition.preset.model if agent is not None else None
        return model.model_dump(by_alias=True) if model is not None else None

    def current(
        self, session_id: str, journal: Journal | None = None, header: SessionHeader | None = None
    ) -> ModelSelection:
        """In-process choice, else the newest request/header in the log, else the host default."""
        logged = journal.model if journal is not None else (header.model if header else None)
        if logged is None:  # nothing asked yet: the preset's model, if it names one
            logged = self.preset_model(session_id)
        return self._selections.current(session_id, logged)

    def context_window(self, selection: ModelSelection) -> int:
        """Tokens the model holds: the configured value (the model's `contextWindow` setting, the
        built-in model's context size) when there is one, else the built-in table
        (docs/decisions/long-sessions.md)."""
        window = self._registry.context_window(selection.provider, selection.model)
        return window or default_window(selection.provider, selection.model)
