"""`engine.library`, the model library: installed models, the catalogue, downloads
and the model servers found on this machine (`llm.localModels`, `llm.downloadModel`, …).

An installed model becomes a route (`local:<id>`) the moment it is installed, announced with
`host/models-changed`; downloads report on `events.host` as `host/model-download` frames
(docs/decisions.md, "Offline agent").
"""

from __future__ import annotations

import asyncio
import shutil
from typing import Any

from contract.frames import HostModelDownload, HostModelsChanged
from contract.llm import (
    CatalogueModelView,
    DownloadModelRequest,
    InstalledModelView,
    LocalModelsValue,
    LocalServerView,
    ModelDownloadView,
)
from contract.namespaces import LLM_OPENAI_COMPATIBLE, OpenAICompatibleSection
from host.engine.errors import LocalModelNotFound, ModelDownloadRefused
from host.engine.llm.local import InstalledFile
from host.engine.llm.local_servers import WELL_KNOWN, Probe, discover_servers, probes_from_env
from host.engine.llm.localmodels import catalogue
from host.engine.llm.localmodels.downloads import DownloadManager
from host.engine.llm.localmodels.library import InstalledModel, ModelLibrary
from host.engine.llm.routes import INSTALLED_PREFIX
from host.engine.sessions.bus import Bus
from host.engine.settings.configuration import ConfigPlane


class Library:
    """The model library: installed models, the catalogue, downloads, model servers on this machine.

    `engine.library`; built by `open` (reads the installed models, makes them routes, picks up
    interrupted downloads)."""

    def __init__(
        self,
        bus: Bus,
        plane: ConfigPlane,
        library: ModelLibrary,
        downloads: DownloadManager,
        probes: tuple[Probe, ...],
    ) -> None:
        self._bus = bus
        self._plane = plane
        self._library = library
        self._downloads = downloads
        self._probes = probes

    @classmethod
    async def open(
        cls,
        library: ModelLibrary,
        bus: Bus,
        plane: ConfigPlane,
        probes: tuple[Probe, ...] | None,
        download_options: dict[str, Any],
    ) -> Library:
        """`library`: built (not yet read) before the configuration plane, which lists its
        models (`installed_files`); read here, off the loop."""
        await asyncio.to_thread(library.open)

        def frame(frame: HostModelDownload) -> None:
            bus.publish("host", frame)

        def changed() -> None:
            bus.publish("host", HostModelsChanged())

        downloads = DownloadManager(library, frame, changed, **download_options)
        await downloads.open()
        chosen = probes if probes is not None else (probes_from_env() or WELL_KNOWN)
        return cls(bus, plane, library, downloads, chosen)

    async def close(self) -> None:
        await self._downloads.close()

    def _models_changed(self) -> None:
        self._bus.publish("host", HostModelsChanged())

    # ---- llm.localModels -------------------------------------------------------------------

    def local_models(self) -> LocalModelsValue:
        installed = self._library.list()
        by_catalog = {m.catalog_id: m.id for m in installed if m.catalog_id}
        try:
            free: int | None = shutil.disk_usage(self._library.root).free
        except OSError:
            free = None
        return LocalModelsValue(
            installed=[_view(m) for m in installed],
            catalogue=[
                CatalogueModelView(
                    id=e.id,
                    name=e.name,
                    description=e.description,
                    file=e.file,
                    url=e.url,
                    size_bytes=e.size_bytes,
                    license=e.license,
                    context_length=e.context_length,
                    memory_bytes=e.memory_bytes,
                    sha256=e.sha256,
                    sha256_note=e.sha256_note,
                    installed_model_id=by_catalog.get(e.id),
                )
                for e in catalogue.shipped()
            ],
            downloads=self._downloads.views(),
            free_bytes=free,
        )

    # ---- downloads ---------------------------------------------------------------------------

    async def download_model(self, request: DownloadModelRequest) -> str:
        """Start a download; raises ModelDownloadRefused (unknown entry, no room, bad source)."""
        if request.catalog_id is not None:
            entry = catalogue.entry(request.catalog_id)
            if entry is None:
                raise ModelDownloadRefused(f"the catalogue has no model {request.catalog_id!r}")
            if any(m.catalog_id == entry.id for m in self._library.list()):
                raise ModelDownloadRefused(f"{entry.name} is already installed")
            started = await self._downloads.start(
                entry.url, name=entry.name, sha256=entry.sha256, catalog_id=entry.id, size=entry.size_bytes
            )
        else:
            assert request.url is not None  # the request model requires one of the two
            started = await self._downloads.start(request.url, name=request.name, sha256=request.sha256)
        return started.download_id

    async def pause_download(self, download_id: str) -> ModelDownloadView:
        return (await self._downloads.pause(download_id)).view()

    async def resume_download(self, download_id: str) -> ModelDownloadView:
        return (await self._downloads.resume(download_id)).view()

    async def cancel_download(self, download_id: str) -> ModelDownloadView:
        return (await self._downloads.cancel(download_id)).view()

    async def remove_model(self, model_id: str) -> bool:
        """Delete an installed model (its route goes with it); raises LocalModelNotFound."""
        if self._library.get(model_id) is None:
            raise LocalModelNotFound(model_id)
        removed = await asyncio.to_thread(self._library.remove, model_id)
        self._models_changed()
        return removed

    # ---- llm.discoverLocal -----------------------------------------------------------------

    async def discover_local(self) -> list[LocalServerView]:
        """Probe the loopback ports now; each server says which endpoint profile already uses it."""
        servers = await discover_servers(self._probes)
        section: OpenAICompatibleSection = self._plane.settings.section(LLM_OPENAI_COMPATIBLE)
        urls = {p.base_url.rstrip("/").replace("localhost", "127.0.0.1"): p.id for p in section.profiles}
        return [s.model_copy(update={"profile_id": urls.get(s.base_url)}) for s in servers]


def installed_files(library: ModelLibrary) -> list[InstalledFile]:
    """The installed models as the routes see them (`local:<id>`)."""
    return [_file(library, m) for m in library.list()]


def _file(library: ModelLibrary, m: InstalledModel) -> InstalledFile:
    return InstalledFile(
        route=INSTALLED_PREFIX + m.id,
        model_id=m.id,
        name=m.name,
        path=m.path(library.root),
        supports_tools=m.supports_tools,
    )


def _view(m: InstalledModel) -> InstalledModelView:
    return InstalledModelView(
        id=m.id,
        provider=INSTALLED_PREFIX + m.id,
        name=m.name,
        file=m.file,
        size_bytes=m.size_bytes,
        sha256=m.sha256,
        supports_tools=m.supports_tools,
        context_length=m.context_length,
        license=m.license,
        catalog_id=m.catalog_id,
        source=m.source,
    )
