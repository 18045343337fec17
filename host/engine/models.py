"""`session.models`: the current selection, routability and the advisory catalog per provider."""

from __future__ import annotations

import asyncio
from typing import Any

from contract.sessions import ModelEntry, ModelFailure, ModelGroup, ModelSelection, ModelsValue

LIST_TIMEOUT = 5.0


def default_model(registry: Any, provider: str) -> str:
    """The registry's default model for a provider (a placeholder name when it has none)."""
    pick = getattr(registry, "default_model", None)
    if callable(pick):
        found = pick(provider)
        if found:
            return str(found)
    for info in registry.providers():
        if info.provider == provider:
            return str(info.default_model)
    return "default"


async def describe(registry: Any, current: ModelSelection) -> ModelsValue:
    groups: list[ModelGroup] = []
    failures: list[ModelFailure] = []
    for info in registry.providers():
        adapter = registry.get(info.provider)
        if adapter is None:
            status = getattr(registry, "status", None)
            why = status(info.provider)[1] if callable(status) else None
            failures.append(ModelFailure(provider=info.provider, message=why or "not configured"))
            continue
        try:
            entries: list[ModelEntry] = await asyncio.wait_for(adapter.list_models(), LIST_TIMEOUT)
        except Exception as exc:
            failures.append(ModelFailure(provider=info.provider, message=str(exc) or type(exc).__name__))
            continue
        groups.append(ModelGroup(provider=info.provider, label=info.label, models=entries))
    routable = registry.get(current.provider) is not None
    return ModelsValue(current=current, routable=routable, groups=groups, failures=failures)
