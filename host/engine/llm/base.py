"""The one streaming protocol every LLM adapter implements (docs/architecture.md,
"LLM adapters")."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from contract.content import AttachmentRef, Message
from contract.llm import DiscoveredModelView


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: name, description and a JSON Schema for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


RetryHook = Callable[[int, int, str], None]
"""Called before each retry with (attempt ≥ 1, delay in ms, reason); the agent logs it."""

AttachmentLoader = Callable[[AttachmentRef], Awaitable[bytes | None]]
"""Returns an image's bytes (None when it is gone); images are skipped without one."""


@dataclass
class LlmRequest:
    model: str
    messages: list[Message]
    system: str | None = None
    tools: list[ToolSpec] = field(default_factory=list)
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    on_retry: RetryHook | None = None
    load_attachment: AttachmentLoader | None = None


class LlmError(Exception):
    """A provider failure after retries; `retryable` tells whether a later attempt may help."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class LlmAdapter(Protocol):
    """Streams one model request as contract `StreamChunk`s.

    Yields block-start / deltas / block-end per content block (indices from 0), then `usage`
    when known, then exactly one `finish`. Cancelling the consuming task must close the
    underlying stream at once. Failures after retries raise `LlmError`.
    """

    provider: str
    supports_tools: bool

    def stream(self, request: LlmRequest) -> AsyncIterator[Any]: ...

    async def list_models(self) -> list[DiscoveredModelView]:
        """The endpoint's own model list (a network call for HTTP adapters); raises LlmError."""
        ...

    async def aclose(self) -> None: ...
