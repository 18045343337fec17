"""`llm.*`: the routes, their catalogue, and model discovery for a draft endpoint."""

from __future__ import annotations

from contract import llm
from host.api.registry import implements
from host.engine.engine import Engine


@implements("llm.providers")
async def providers(engine: Engine, p: llm.ProvidersRequest) -> llm.ProvidersValue:
    return llm.ProvidersValue(providers=engine.providers())


@implements("llm.models")
async def models(engine: Engine, p: llm.LlmModelsRequest) -> llm.LlmModelsValue:
    groups, failures = await engine.catalogue()
    return llm.LlmModelsValue(groups=groups, failures=failures)


@implements("llm.discoverModels")
async def discover_models(engine: Engine, p: llm.DiscoverModelsRequest) -> llm.DiscoverModelsValue:
    return llm.DiscoverModelsValue(models=await engine.discover_models(p))
