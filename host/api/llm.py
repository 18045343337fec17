"""`llm.*`: the routes, their catalogue, model discovery for a draft endpoint, the model library
(installed models, downloads) and the model servers found on this machine."""

from __future__ import annotations

from contract import llm
from contract.methods import (
    LLM_CANCEL_DOWNLOAD,
    LLM_DISCOVER_LOCAL,
    LLM_DISCOVER_MODELS,
    LLM_DOWNLOAD_MODEL,
    LLM_LOCAL_MODELS,
    LLM_MODELS,
    LLM_PAUSE_DOWNLOAD,
    LLM_PROVIDERS,
    LLM_REMOVE_MODEL,
    LLM_RESUME_DOWNLOAD,
)
from host.api.registry import implements
from host.engine.engine import Engine


@implements(LLM_PROVIDERS)
async def providers(engine: Engine, p: llm.ProvidersRequest) -> llm.ProvidersValue:
    return llm.ProvidersValue(providers=engine.config.providers())


@implements(LLM_MODELS)
async def models(engine: Engine, p: llm.LlmModelsRequest) -> llm.LlmModelsValue:
    groups, failures = await engine.config.catalogue()
    return llm.LlmModelsValue(groups=groups, failures=failures)


@implements(LLM_DISCOVER_MODELS)
async def discover_models(engine: Engine, p: llm.DiscoverModelsRequest) -> llm.DiscoverModelsValue:
    return llm.DiscoverModelsValue(models=await engine.config.discover_models(p))


@implements(LLM_LOCAL_MODELS)
async def local_models(engine: Engine, p: llm.LocalModelsRequest) -> llm.LocalModelsValue:
    return engine.library.local_models()


@implements(LLM_DOWNLOAD_MODEL)
async def download_model(engine: Engine, p: llm.DownloadModelRequest) -> llm.DownloadModelValue:
    return llm.DownloadModelValue(download_id=await engine.library.download_model(p))


@implements(LLM_PAUSE_DOWNLOAD)
async def pause_download(engine: Engine, p: llm.DownloadRequest) -> llm.DownloadValue:
    return llm.DownloadValue(download=await engine.library.pause_download(p.download_id))


@implements(LLM_RESUME_DOWNLOAD)
async def resume_download(engine: Engine, p: llm.DownloadRequest) -> llm.DownloadValue:
    return llm.DownloadValue(download=await engine.library.resume_download(p.download_id))


@implements(LLM_CANCEL_DOWNLOAD)
async def cancel_download(engine: Engine, p: llm.DownloadRequest) -> llm.DownloadValue:
    return llm.DownloadValue(download=await engine.library.cancel_download(p.download_id))


@implements(LLM_REMOVE_MODEL)
async def remove_model(engine: Engine, p: llm.RemoveModelRequest) -> llm.RemoveModelValue:
    return llm.RemoveModelValue(removed=await engine.library.remove_model(p.model_id))


@implements(LLM_DISCOVER_LOCAL)
async def discover_local(engine: Engine, p: llm.DiscoverLocalRequest) -> llm.DiscoverLocalValue:
    return llm.DiscoverLocalValue(servers=await engine.library.discover_local())
