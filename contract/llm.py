"""`llm.*`: the routes that serve models, their catalogue, and model discovery for a draft.

A route (`local`, `deepseek`, or one per OpenAI-compatible endpoint profile) is what a model
selection's `provider` names. `llm.discoverModels` asks a draft endpoint (not yet saved) for its
model list with a draft key used once and never stored or echoed.
"""

from __future__ import annotations

from pydantic import Field

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
