"""LLM adapters: one streaming protocol (`base.LlmAdapter`) and the routes behind it."""

from typing import TYPE_CHECKING, Any

from host.engine.llm.base import LlmAdapter, LlmError, LlmRequest, RetryHook, ToolSpec
from host.engine.llm.local import LocalModelAdapter
from host.engine.llm.registry import AdapterRegistry

if TYPE_CHECKING:
    from host.engine.llm.openai_compat import OpenAICompatibleAdapter


def __getattr__(name: str) -> Any:
    """`OpenAICompatibleAdapter` on first use: it brings httpx, which a host that has not yet
    talked to a provider does not need (docs/decisions.md, "Performance and packaging")."""
    if name != "OpenAICompatibleAdapter":
        raise AttributeError(f"module 'host.engine.llm' has no attribute {name!r}")
    from host.engine.llm.openai_compat import OpenAICompatibleAdapter

    globals()[name] = OpenAICompatibleAdapter
    return OpenAICompatibleAdapter


__all__ = [
    "AdapterRegistry",
    "LlmAdapter",
    "LlmError",
    "LlmRequest",
    "LocalModelAdapter",
    "OpenAICompatibleAdapter",
    "RetryHook",
    "ToolSpec",
]
