"""`llm.*`: the routes, their catalogue, model discovery for a draft endpoint, the model library
(installed models, downloads) and the model servers found on this machine."""

from __future__ import annotations

from contract import llm
from host.api.registry import implements
from host.engine.engine import Engine


@implements("llm.providers")
async def providers(engine: Engine, p: llm.ProvidersRequest) -> llm.ProvidersValue:
    return llm.ProvidersValue(providers=engine.config.providers())


@implements("llm.models")
async def models(engine: Engine, p: llm.LlmModelsRequest) -> llm.LlmModelsValue:
    groups, failures = await engine.config.catalogue()
    return llm.LlmModelsValue(groups=groups, failures=failures)


@implements("llm.discoverModels")
async def discover_models(engine: Engine, p: llm.DiscoverModelsRequest) -> llm.DiscoverModelsValue:
    return llm.DiscoverModelsValue(models=await engine.config.discover_models(p))


@implements("llm.localModels")
async def local_models(engine: Engine, p: llm.LocalModelsRequest) -> llm.LocalModelsValue:
    return engine.library.local_models()


@implements("llm.downloadModel")
async def download_model(engine: Engine, p: llm.DownloadModelRequest) -> llm.DownloadModelValue:
    return llm.DownloadModelValue(download_id=await engine.library.download_model(p))


@implements("llm.pauseDownload")
async def pause_download(engine: Engine, p: llm.DownloadRequest) -> llm.DownloadValue:
    return llm.DownloadValue(download=await engine.library.pause_download(p.download_id))


@implements("llm.resumeDownload")
async def resume_download(engine: Engine, p: llm.DownloadRequest) -> llm.DownloadValue:
    return llm.DownloadValue(download=await engine.library.resume_download(p.download_id))


@implements("llm.cancelDownload")
async def cancel_download(engine: Engine, p: llm.DownloadRequest) -> llm.DownloadValue:
    return llm.DownloadValue(download=await engine.library.cancel_download(p.download_id))


@implements("llm.removeModel")
async def remove_model(engine: Engine, p: llm.RemoveModelRequest) -> llm.RemoveModelValue:
    return llm.RemoveModelValue(removed=await engine.library.remove_model(p.model_id))


@implements("llm.discoverLocal")
async def discover_local(engine: Engine, p: llm.DiscoverLocalRequest) -> llm.DiscoverLocalValue:
    return llm.DiscoverLocalValue(servers=await engine.library.discover_local())
