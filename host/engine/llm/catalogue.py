"""The provider catalogue: what stands behind each provider name.

The contract owns the names (`contract.settings.ProviderName`); this module owns, per name, the
label and defaults a user sees, whether its adapter runs in-process or over HTTP, when it needs
an API key, and how its adapter is built. Everything else (settings, credentials, the adapter
registry, the CLI) asks here instead of keeping a list of its own.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

from contract.settings import ProviderInfo, ProviderName
from host.engine.llm.base import LlmAdapter
from host.engine.llm.deepseek import DEEPSEEK_BASE_URL, DEEPSEEK_DEFAULT_MODEL, deepseek_adapter
from host.engine.llm.local import MODEL_ID
from host.engine.llm.openai_compat import OpenAICompatibleAdapter

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"

KeyRule = Literal["never", "always", "off-network"]
"""When the provider needs an API key: never, always, or only for a server off this
machine/network (a local Ollama or llama.cpp server takes none)."""

HttpBuilder = Callable[[str, str | None, dict[str, Any]], LlmAdapter]
"""(base URL, API key, adapter options) -> adapter."""


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


@dataclass(frozen=True)
class Provider:
    name: ProviderName
    label: str
    key_rule: KeyRule
    default_model: str
    default_base_url: str | None = None
    build: HttpBuilder | None = None
    """How the HTTP adapter is built; None for the in-process model."""

    @property
    def remote(self) -> bool:
        """Reached over HTTP at a base URL; its key may come from the credential store."""
        return self.build is not None

    def needs_key(self, base_url: str | None) -> bool:
        if self.key_rule == "off-network":
            return base_url is not None and not is_local_url(base_url)
        return self.key_rule == "always"

    @property
    def info(self) -> ProviderInfo:
        """What the settings page shows (`needsKey` only when a key is needed wherever it runs)."""
        return ProviderInfo(
            provider=self.name,
            label=self.label,
            needs_key=self.key_rule == "always",
            default_base_url=self.default_base_url,
            default_model=self.default_model,
        )


def _openai(base_url: str, key: str | None, options: dict[str, Any]) -> LlmAdapter:
    return OpenAICompatibleAdapter(base_url, key, **options)


def _deepseek(base_url: str, key: str | None, options: dict[str, Any]) -> LlmAdapter:
    if key is None:
        raise ValueError("DeepSeek needs an API key")
    return deepseek_adapter(key, base_url, **options)


_ENTRIES = (
    Provider("local", "Built-in model (offline)", "never", MODEL_ID),
    Provider(
        "openai-compatible",
        "OpenAI-compatible server",
        "off-network",
        OPENAI_DEFAULT_MODEL,
        OPENAI_DEFAULT_BASE_URL,
        _openai,
    ),
    Provider("deepseek", "DeepSeek", "always", DEEPSEEK_DEFAULT_MODEL, DEEPSEEK_BASE_URL, _deepseek),
)

NAMES: tuple[ProviderName, ...] = get_args(ProviderName)

CATALOGUE: dict[str, Provider] = {p.name: p for p in _ENTRIES}
"""Every provider the contract names, in the contract's order."""
if tuple(CATALOGUE) != NAMES:
    raise RuntimeError(f"the provider catalogue {tuple(CATALOGUE)} does not match the contract's {NAMES}")

REMOTE: tuple[str, ...] = tuple(name for name, p in CATALOGUE.items() if p.remote)
"""The providers that take a credential."""


def lookup(name: str) -> Provider | None:
    return CATALOGUE.get(name)
