"""Model selection per session: in-process choice, else the log's newest `request/header`,
else the host default (settings, with CLI overrides on top). A selection made through
`session.selectModel` is saved as the host default for new sessions."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

from contract.sessions import ModelSelection
from host.engine import models as model_info
from host.engine.config import Config
from host.engine.errors import ModelUnavailable, SettingsRejected

log = logging.getLogger(__name__)


class Selections:
    def __init__(self, config: Config, registry: Any) -> None:
        self._config = config
        self._registry = registry
        self._chosen: dict[str, ModelSelection] = {}
        self._saving = asyncio.Lock()

    def default(self) -> ModelSelection:
        settings = self._config.llm()
        model = settings.model or model_info.default_model(self._registry, settings.provider)
        return ModelSelection(
            provider=settings.provider, model=model, reasoning_effort=settings.reasoning_effort
        )

    def current(self, session_id: str, logged: dict[str, Any] | None) -> ModelSelection:
        chosen = self._chosen.get(session_id)
        if chosen is not None:
            return chosen
        if logged and logged.get("provider") and logged.get("model"):
            return ModelSelection.model_validate(logged)
        return self.default()

    def inherit(self, child_id: str, selection: ModelSelection) -> None:
        self._chosen[child_id] = selection

    def forget(self, session_id: str) -> None:
        self._chosen.pop(session_id, None)

    async def select(self, session_id: str, provider: str, model: str, effort: str | None) -> ModelSelection:
        """Validate against the adapters; raises ModelUnavailable for an unknown provider or an
        unsupported reasoning effort (the catalog is advice: any model name is accepted)."""
        adapter = self._registry.get(provider)
        if adapter is None:
            raise ModelUnavailable(provider, model)
        if effort is not None and effort not in adapter.reasoning_efforts:
            raise ModelUnavailable(provider, model, f"{provider} does not support effort {effort!r}")
        selection = ModelSelection(provider=provider, model=model, reasoning_effort=effort)
        self._chosen[session_id] = selection
        async with self._saving:  # off the event loop, one save at a time in call order
            await asyncio.to_thread(self._save_default, selection)
        return selection

    def _save_default(self, selection: ModelSelection) -> None:
        try:
            # every field, None included: a selection without an effort unsets the saved one
            self._config.update(selection.model_dump(by_alias=True))
        except (SettingsRejected, OSError) as exc:
            log.warning("could not save the model selection as the default: %s", exc)
            return
        overrides = self._config.overrides
        if overrides.provider or overrides.model:  # CLI flags must not mask the new choice
            self._config.overrides = dataclasses.replace(
                overrides,
                provider=selection.provider if overrides.provider else None,
                model=selection.model if overrides.model else None,
            )
