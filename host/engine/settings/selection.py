"""Model selection per session: in-process choice, else the log's newest `request/header`,
else the host default (`agent-default-model`, under the command line's `--provider/--model`
for this run). `session.selectModel` saves its choice as the host default for new sessions;
from then on the flags no longer mask it (docs/decisions.md, "Configuration")."""

from __future__ import annotations

import logging
from typing import Any

from contract.namespaces import AGENT_DEFAULT_MODEL, DefaultModelSection
from contract.sessions import ModelSelection
from host.engine.errors import ModelUnavailable, SettingsRejected
from host.engine.llm.overrides import RuntimeOverrides
from host.engine.llm.registry import AdapterRegistry
from host.engine.settings.store import SettingsStore

log = logging.getLogger(__name__)


class Selections:
    def __init__(
        self, settings: SettingsStore, registry: AdapterRegistry, overrides: RuntimeOverrides
    ) -> None:
        self._settings = settings
        self._registry = registry
        self._flags = overrides
        self._command_line = overrides
        self._chosen: dict[str, ModelSelection] = {}

    def default(self) -> ModelSelection:
        """A saved default whose route was removed falls back to the command line's provider,
        else the built-in model (a route that exists but cannot serve stays: the UI says why)."""
        saved: DefaultModelSection = self._settings.section(AGENT_DEFAULT_MODEL)
        provider = self._flags.provider or saved.provider
        flag_model = self._flags.model
        if self._registry.route(provider) is None:
            cli = self._command_line
            usable = cli.provider is not None and self._registry.route(cli.provider) is not None
            provider, flag_model = (cli.provider or "local", cli.model) if usable else ("local", None)
        same = provider == saved.provider
        model = flag_model or (saved.model if same else None)
        model = model or self._registry.default_model(provider) or "default"
        effort = saved.reasoning_effort if same and model == saved.model else None
        return ModelSelection(provider=provider, model=model, reasoning_effort=effort)

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

    def check(self, provider: str, model: str, effort: str | None) -> None:
        """Raises ModelUnavailable for a route that cannot serve, or an effort the model does not
        take (the catalogue is advice: any model name is accepted)."""
        if self._registry.get(provider) is None:
            _, why = self._registry.status(provider)
            raise ModelUnavailable(provider, model, why)
        route = self._registry.route(provider)
        efforts = route.efforts(model) if route is not None else ()
        if effort is not None and effort not in efforts:
            takes = f"one of {', '.join(efforts)}" if efforts else "no reasoning effort"
            raise ModelUnavailable(provider, model, f"{provider}/{model} takes {takes}, not {effort!r}")

    async def select(self, session_id: str, provider: str, model: str, effort: str | None) -> ModelSelection:
        self.check(provider, model, effort)
        selection = ModelSelection(provider=provider, model=model, reasoning_effort=effort)
        self._chosen[session_id] = selection
        self._flags = RuntimeOverrides(base_url=self._flags.base_url, provider=None, model=None)
        saved = selection.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:  # the settings store writes one namespace at a time, in call order, off the loop
            await self._settings.write(AGENT_DEFAULT_MODEL, lambda _: saved, None, internal=True)
        except SettingsRejected as exc:
            log.warning("could not save the model selection as the default: %s", exc)
        return selection
