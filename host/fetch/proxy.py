"""What the HTTP handler needs from an ApiProxy implementation, and nothing more.

The handler never names a domain method: for each `Method` of the map it looks up
`getattr(getattr(api, m.domain), m.attr)`. The protocol therefore only fixes the carrier-level
members (`events`, `respond`, `export_session`); `resolve` covers the rest (an unimplemented
method is answered 501).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from contract.methods import AnyMethod
from contract.rpc import ClientResponse, ReceiptAccepted, ReceiptRefused, RpcRequest, RpcResponse
from contract.sessions import ExportQuery


@dataclass(frozen=True)
class ExportArchive:
    """A session export ready to stream: `chunks()` yields the ZIP bytes, never all at once."""

    filename: str
    chunks: Callable[[], AsyncIterator[bytes]]


class UnaryImpl(Protocol):
    """One domain method: a narrow request in, a narrow response (echoing `rpcId`) out."""

    async def __call__(self, request: RpcRequest[Any], /) -> RpcResponse[Any]: ...


StreamItem = RpcRequest[Any] | Sequence[RpcRequest[Any]]
"""One frame, or a batch of frames ready together (sent in one write)."""


class EventsProxy(Protocol):
    """The two carrier streams; each item is a `RpcRequest` whose payload is a frame model, or
    a batch of them."""

    def mux(self) -> AsyncIterator[StreamItem]: ...

    def host(self) -> AsyncIterator[StreamItem]: ...


@runtime_checkable
class ApiProxy(Protocol):
    """The host API as the handler sees it.

    Besides these members, an implementation holds one object per domain of the method map
    (`session`, `host`, `settings`, `credentials`, …) whose snake_case coroutine methods
    implement the map's keys (`session.selectModel` → `api.session.select_model`).
    """

    @property
    def events(self) -> EventsProxy: ...

    async def respond(self, response: ClientResponse, /) -> ReceiptAccepted | ReceiptRefused: ...

    async def export_session(self, query: ExportQuery, /) -> ExportArchive | None: ...


def resolve(api: object, method: AnyMethod) -> UnaryImpl | None:
    """The coroutine implementing `method`, or None when the api does not provide it."""
    impl = getattr(getattr(api, method.domain, None), method.attr, None)
    return impl if callable(impl) else None


def resolve_stream(api: object, key: str) -> Callable[[], AsyncIterator[StreamItem]] | None:
    """The frame source of stream `key` (`events.mux` → `api.events.mux`)."""
    domain, name = key.split(".", 1)
    source = getattr(getattr(api, domain, None), name, None)
    return source if callable(source) else None
