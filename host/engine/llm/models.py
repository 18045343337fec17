"""The model catalogue: every active route's models (`llm.models`, `session.models`).

A route with configured models answers from its settings (no network); one without asks its
endpoint (`GET /models`), bounded by `LIST_TIMEOUT`. Routes are looked up concurrently, each on
its own: one that fails is a `failure`, a group with no models is dropped. The catalogue is
advice: `session.selectModel` accepts a model it does not list.
"""

from __future__ import annotations

import asyncio

from contract.llm import (
    CatalogModel,
    EffortView,
    ModelCatalogFailure,
    ModelProviderGroup,
    ModelReasoning,
)
from contract.namespaces import ModelSpec
from contract.sessions import ModelSelection, ModelsValue
from host.engine.llm.base import LlmError
from host.engine.llm.registry import AdapterRegistry
from host.engine.llm.routes import Route

LIST_TIMEOUT = 5.0
EFFORT_NAMES = {"xhigh": "Extra high", "max": "Maximum"}


def effort_view(effort: str) -> EffortView:
    return EffortView(id=effort, name=EFFORT_NAMES.get(effort, effort.capitalize()))


def catalog_model(route: Route, spec: ModelSpec) -> CatalogModel:
    reasoning = None
    if spec.reasoning_efforts:
        default = route.reasoning_effort if route.reasoning_effort in spec.reasoning_efforts else None
        reasoning = ModelReasoning(
            efforts=[effort_view(e) for e in spec.reasoning_efforts], default_effort=default
        )
    return CatalogModel(
        id=spec.id, name=spec.name or spec.id, description=spec.description, reasoning=reasoning
    )


async def _group(registry: AdapterRegistry, route: Route) -> ModelProviderGroup | ModelCatalogFailure | None:
    if route.models is not None:
        models = [catalog_model(route, spec) for spec in route.models]
    else:
        adapter = registry.get(route.key)
        if adapter is None:
            return None
        try:
            listed = await asyncio.wait_for(adapter.list_models(), LIST_TIMEOUT)
        except TimeoutError:
            return ModelCatalogFailure(
                id=route.key, name=route.display_name, message=f"no model list within {LIST_TIMEOUT:g} s"
            )
        except LlmError as exc:
            return ModelCatalogFailure(id=route.key, name=route.display_name, message=str(exc))
        models = [CatalogModel(id=m.id, name=m.name or m.id) for m in listed]
    if not models:
        return None
    return ModelProviderGroup(id=route.key, name=route.display_name, models=models)


async def catalogue(registry: AdapterRegistry) -> tuple[list[ModelProviderGroup], list[ModelCatalogFailure]]:
    """Groups and failures over every active route, in directory order."""
    active = [r for r in registry.routes() if registry.status(r.key)[0]]
    found = await asyncio.gather(*(_group(registry, r) for r in active))
    groups = [g for g in found if isinstance(g, ModelProviderGroup)]
    failures = [f for f in found if isinstance(f, ModelCatalogFailure)]
    return groups, failures


async def describe(registry: AdapterRegistry, current: ModelSelection) -> ModelsValue:
    groups, failures = await catalogue(registry)
    routable = registry.get(current.provider) is not None
    return ModelsValue(current=current, routable=routable, groups=groups, failures=failures)
