"""The engine's default collaborators: the LLM adapter registry and the tool set."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from contract.settings import LlmSettings, ProviderInfo
from host.engine.llm.base import LlmAdapter
from host.engine.tools.base import Tool


class Registry(Protocol):
    """What the engine needs from `host.engine.llm.registry.AdapterRegistry`."""

    def get(self, provider: str) -> LlmAdapter | None: ...

    def providers(self) -> list[ProviderInfo]: ...

    async def aclose(self) -> None: ...


RegistryFactory = Callable[[Callable[[], LlmSettings], Callable[[str], str | None]], Registry]
"""`(settings, key_for) -> registry`, called once when the engine opens."""


def default_registry(settings: Callable[[], LlmSettings], key_for: Callable[[str], str | None]) -> Registry:
    from host.engine.llm.registry import AdapterRegistry

    return AdapterRegistry(settings, key_for)


def default_tools() -> dict[str, Tool]:
    from host.engine.tools import build_tools

    return build_tools()
