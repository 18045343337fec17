"""The route directory: which routes exist, what configures each, and whether it can serve.

A route is what a model selection's `provider` names:
- `local`, the built-in model (namespace `llm-local`);
- `local:<model id>`, one per model installed in the model library (configured by `llm-local`
  too: threads and context size; listed after `local`);
- `deepseek`, DeepSeek's API (namespace `llm-deepseek`);
- one route per OpenAI-compatible endpoint profile, keyed by the profile's id (namespace
  `llm-openai-compatible`, path `["profiles", i]`);
- with `--provider openai-compatible --base-url URL` and no profile of that id, a run-only
  route `openai-compatible` that no setting declares (its key: `HARNESSDESK_API_KEY`).
Command-line flags win over settings for that run only and are never saved.

Everything is read from the settings store on each call, so a settings change applies live.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from contract.namespaces import (
    LLM_DEEPSEEK,
    LLM_LOCAL,
    LLM_OPENAI_COMPATIBLE,
    DeepSeekSection,
    LocalSection,
    ModelSpec,
    OpenAICompatibleSection,
)
from host.engine.llm.deepseek import DEEPSEEK_DEFAULT_MODEL
from host.engine.llm.local import MODEL_ID, MODEL_LABEL, InstalledFile
from host.engine.llm.overrides import RuntimeOverrides

RouteKind = Literal["local", "openai"]
LOCAL = "local"
DEEPSEEK = "deepseek"
INSTALLED_PREFIX = "local:"
"""Route keys of installed models; a profile id cannot contain `:`, so none collides."""
CLI_ROUTE = "openai-compatible"
CLI_KEY_REF = "HARNESSDESK_API_KEY"
"""The key of the run-only command-line route (the variable earlier versions read)."""
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
FALLBACK_MODEL = "gpt-4o-mini"
"""The model of an endpoint with none configured, until the user picks one."""
DEFAULT_IDLE_MS = 60_000


def is_local_url(base_url: str) -> bool:
    """Loopback, private-network and `.local` hosts (Ollama, LM Studio, llama.cpp, vLLM …)."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith((".localhost", ".local", ".lan")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def url_problem(base_url: str | None) -> str | None:
    parts = urlsplit(base_url or "")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"the base URL {base_url!r} is not an http(s) URL"
    return None


@dataclass(frozen=True)
class Route:
    key: str
    display_name: str
    kind: RouteKind
    settings_ns: str
    settings_path: tuple[str, ...] = ()
    base_url: str | None = None
    key_ref: str | None = None
    key_required: bool = False
    """A missing key makes the route inactive (else the request goes without one)."""
    models: tuple[ModelSpec, ...] | None = None
    """The configured models; None = ask the endpoint (`GET /models`)."""
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    idle_timeout_ms: int = DEFAULT_IDLE_MS
    declared: bool | None = None
    local_options: tuple[int | None, int] = (None, 8192)
    """(threads, context size) of the built-in model."""
    installed: InstalledFile | None = None
    """The model file of an installed-model route."""

    @property
    def default_model(self) -> str:
        if self.models:
            return self.models[0].id
        if self.kind == "local":
            return MODEL_ID
        return DEEPSEEK_DEFAULT_MODEL if self.key == DEEPSEEK else FALLBACK_MODEL

    def spec(self, model: str) -> ModelSpec | None:
        return next((m for m in self.models or () if m.id == model), None)

    def efforts(self, model: str) -> tuple[str, ...]:
        """The reasoning efforts `model` accepts on this route (none when it is not configured)."""
        spec = self.spec(model)
        return tuple(spec.reasoning_efforts) if spec is not None else ()


def build_routes(
    local: LocalSection,
    deepseek: DeepSeekSection,
    endpoints: OpenAICompatibleSection,
    overrides: RuntimeOverrides,
    installed: Sequence[InstalledFile] = (),
) -> list[Route]:
    """Every route in declaration order, command-line overrides applied for this run."""
    flag_url = overrides.base_url.rstrip("/") if overrides.base_url else None

    def url_for(key: str, configured: str) -> str:
        return flag_url if flag_url and overrides.provider == key else configured.rstrip("/")

    routes = [
        Route(
            LOCAL,
            "Built-in model (offline)",
            "local",
            LLM_LOCAL,
            models=(ModelSpec(id=MODEL_ID, name=MODEL_LABEL),),
            declared=False,
            local_options=(local.threads, local.context_size),
        ),
        *(
            Route(
                m.route,
                f"{m.name} (downloaded, offline)",
                "local",
                LLM_LOCAL,
                models=(ModelSpec(id=m.model_id, name=m.name),),
                declared=False,
                local_options=(local.threads, local.context_size),
                installed=m,
            )
            for m in installed
        ),
        Route(
            DEEPSEEK,
            "DeepSeek",
            "openai",
            LLM_DEEPSEEK,
            base_url=url_for(DEEPSEEK, deepseek.base_url),
            key_ref=deepseek.api_key_env,
            key_required=True,
            models=tuple(deepseek.models) or None,
            reasoning_effort=deepseek.reasoning_effort,
            max_tokens=deepseek.max_tokens,
            idle_timeout_ms=deepseek.stream_idle_timeout_ms,
            declared=False,
        ),
    ]
    for index, p in enumerate(endpoints.profiles):
        url = url_for(p.id, p.base_url)
        routes.append(
            Route(
                p.id,
                p.name,
                "openai",
                LLM_OPENAI_COMPATIBLE,
                ("profiles", str(index)),
                base_url=url,
                key_ref=p.api_key_env,
                key_required=bool(p.api_key_env) and not is_local_url(url),
                models=tuple(p.models) if p.models is not None else None,
                reasoning_effort=p.reasoning_effort,
                max_tokens=p.max_tokens,
                idle_timeout_ms=p.stream_idle_timeout_ms,
                declared=True,
            )
        )
    if overrides.provider == CLI_ROUTE and all(r.key != CLI_ROUTE for r in routes):
        url = flag_url or OPENAI_DEFAULT_BASE_URL
        routes.append(
            Route(
                CLI_ROUTE,
                "OpenAI-compatible (command line)",
                "openai",
                "",
                base_url=url,
                key_ref=CLI_KEY_REF,
                key_required=not is_local_url(url),
            )
        )
    return routes
