"""LLM adapters: one streaming protocol (`base.LlmAdapter`) and the routes behind it."""

from host.engine.llm.base import LlmAdapter, LlmError, LlmRequest, RetryHook, ToolSpec
from host.engine.llm.local import LocalModelAdapter
from host.engine.llm.openai_compat import OpenAICompatibleAdapter
from host.engine.llm.registry import AdapterRegistry

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
