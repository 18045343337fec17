"""`llm.*`: the routes that serve models, their catalogue, and model discovery for a draft.

A route (`local`, `deepseek`, or one per OpenAI-compatible endpoint profile) is what a model
selection's `provider` names. `llm.discoverModels` asks a draft endpoint (not yet saved) for its
model list with a draft key used once and never stored or echoed.
"""

from __future__ import annotations

from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, model_validator

from contract._base import WireModel
from contract.settings import SettingsPath


class ConfigurableProviderView(WireModel):
    provider: str = Field(min_length=1)
    """The route key, e.g. `deepseek` or a profile id."""
    display_name: str = Field(min_length=1)
    settings_ns: str
    """The namespace that configures the route; `""` for a live route no setting declares."""
    settings_path: SettingsPath
    """Path from the section root to this route's profile; `[]` = the whole section."""
    active: bool
    """Whether the route can serve requests now (its URL and key are usable)."""
    declared: bool | None = None
    """True when only configuration declares the route (an endpoint profile)."""
    problem: str | None = None
    """Why an inactive route cannot serve (never a secret)."""
    supports_tools: bool
    """False when the route's model only talks: it is offered no tools (it cannot read files or
    run commands), and the UI says so where the user types."""


# llm.providers
class ProvidersRequest(WireModel):
    pass


class ProvidersValue(WireModel):
    providers: list[ConfigurableProviderView]


# the catalogue (llm.models, session.models)
class EffortView(WireModel):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    description: str | None = None


class ModelReasoning(WireModel):
    efforts: list[EffortView]
    default_effort: str | None = None


class CatalogModel(WireModel):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    description: str | None = None
    reasoning: ModelReasoning | None = None
    """Present when the model takes a reasoning effort; the choice is one of `efforts`."""


class ModelProviderGroup(WireModel):
    id: str = Field(min_length=1)
    """The route key."""
    name: str = Field(min_length=1)
    models: list[CatalogModel]


class ModelCatalogFailure(WireModel):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    message: str


class LlmModelsRequest(WireModel):
    pass


class LlmModelsValue(WireModel):
    groups: list[ModelProviderGroup]
    failures: list[ModelCatalogFailure]


# llm.discoverModels
class DiscoverModelsRequest(WireModel):
    settings_ns: str = Field(min_length=1)
    provider: str | None = Field(default=None, min_length=1)
    base_url: str | None = Field(default=None, min_length=1, max_length=2000, alias="baseURL")
    api: str | None = Field(default=None, min_length=1)
    """The draft protocol; only `openai-completions` (the default) is spoken."""
    api_key: str | None = Field(default=None, min_length=1, max_length=4096, repr=False)


class DiscoveredModelView(WireModel):
    id: str = Field(min_length=1)
    name: str | None = Field(default=None, min_length=1)
    context_window: int | None = Field(default=None, gt=0)
    max_tokens: int | None = Field(default=None, gt=0)


class DiscoverModelsValue(WireModel):
    models: list[DiscoveredModelView]


# ---- the model library and local servers (docs/decisions.md, "Offline agent") --------------

DownloadState = Literal["running", "paused", "verifying", "done", "failed", "cancelled"]
"""`running` (also while it reconnects), `paused` (kept on disk, resumable), `verifying` (the
checksum and the GGUF header), then `done`, `failed` (nothing was installed) or `cancelled`."""

DownloadCause = Literal["no-network"]
"""Why a download failed, when the page can say it in its words and offer what still works:
`no-network`, this machine reached no network (the name did not resolve, no route)."""


class CatalogueModelView(WireModel):
    """A tool-capable GGUF model the app offers for download."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    description: str
    file: str
    url: str
    size_bytes: int = Field(ge=0)
    license: str
    context_length: int = Field(gt=0)
    memory_bytes: int = Field(ge=0)
    """An estimate of the memory it needs to run."""
    sha256: str | None = None
    sha256_note: str | None = None
    """Why `sha256` is absent (the download is then checked for being a GGUF file only)."""
    installed_model_id: str | None = None


class InstalledModelView(WireModel):
    id: str = Field(min_length=1)
    provider: str = Field(min_length=1)
    """The route key that runs it (`local:<id>`)."""
    name: str = Field(min_length=1)
    file: str
    size_bytes: int = Field(ge=0)
    sha256: str
    supports_tools: bool
    """Its chat template declares tools: the agent gets its tools with this model."""
    context_length: int | None = None
    license: str | None = None
    catalog_id: str | None = None
    source: str | None = None


class ModelDownloadView(WireModel):
    download_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    state: DownloadState
    received_bytes: int = Field(ge=0)
    total_bytes: int | None = Field(default=None, ge=0)
    error: str | None = None
    cause: DownloadCause | None = None
    catalog_id: str | None = None
    model_id: str | None = None
    """The installed model, once `done`."""


class LocalModelsRequest(WireModel):
    pass


class LocalModelsValue(WireModel):
    installed: list[InstalledModelView]
    catalogue: list[CatalogueModelView]
    downloads: list[ModelDownloadView]
    free_bytes: int | None = None
    """Free space where models are stored."""


Sha256 = Annotated[str, Field(pattern=r"^[0-9a-fA-F]{64}$")]


class DownloadModelRequest(WireModel):
    """Either a catalogue entry, or any GGUF by URL (`http(s)://`, or `file://` for a file on
    this machine, which is copied)."""

    catalog_id: str | None = Field(default=None, min_length=1, max_length=100)
    url: str | None = Field(default=None, min_length=1, max_length=4000)
    sha256: Sha256 | None = None
    name: str | None = Field(default=None, min_length=1, max_length=200)

    @model_validator(mode="after")
    def _one_source(self) -> DownloadModelRequest:
        if (self.catalog_id is None) == (self.url is None):
            raise ValueError("give either catalogId or url")
        if self.url is not None and urlsplit(self.url).scheme not in ("http", "https", "file"):
            raise ValueError("url must be http(s):// or file://")
        return self


class DownloadModelValue(WireModel):
    download_id: str


class DownloadRequest(WireModel):
    download_id: str = Field(min_length=1, max_length=100)


class DownloadValue(WireModel):
    download: ModelDownloadView


class RemoveModelRequest(WireModel):
    model_id: str = Field(min_length=1, max_length=100)


class RemoveModelValue(WireModel):
    removed: bool


LocalServerKind = Literal["ollama", "lm-studio", "llama.cpp", "vllm", "jan"]


class LocalServerView(WireModel):
    """A model server answering on a loopback port of this machine."""

    kind: LocalServerKind
    name: str
    base_url: str = Field(alias="baseURL")
    """What an endpoint profile for it uses (OpenAI-compatible, `/v1`)."""
    port: int
    models: list[DiscoveredModelView]
    profile_id: str | None = None
    """An endpoint profile that already points at it."""


class DiscoverLocalRequest(WireModel):
    pass


class DiscoverLocalValue(WireModel):
    servers: list[LocalServerView]
