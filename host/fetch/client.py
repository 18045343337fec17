"""`AbstractApiClient`: the contract spoken over any transport that can do one HTTP exchange.

It mints rpcIds, wraps envelopes, checks the echo and the value against the method map, and
parses streams into typed frames. A subclass only supplies `do_fetch`.
"""

from __future__ import annotations

import asyncio
import functools
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import from_json

from contract._base import to_wire
from contract.methods import METHODS, Method, Req, Val
from contract.rpc import (
    RPC_MESSAGE,
    RPC_RECEIPT,
    ClientRequest,
    ClientResponse,
    ReceiptAccepted,
    ReceiptRefused,
    RpcErr,
    RpcOk,
    RpcResponse,
    ServerResponse,
    new_rpc_id,
    response_model,
)
from host.fetch.errors import ProtocolError, TransportError
from host.fetch.fetch_response import FetchResponse
from host.fetch.frame_stream import FrameStream
from host.fetch.inbound import json_bytes
from host.fetch.observers import EnvelopeHub, EnvelopeObserver

UNARY_TIMEOUT = 30.0
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json"}


def _wire(value: BaseModel | Mapping[str, Any] | None) -> dict[str, Any]:
    return {} if value is None else dict(to_wire(value))


class AbstractApiClient(ABC):
    """The Python client family: `call`, `respond`, `stream`, `subscribe_envelopes`."""

    def __init__(self, *, timeout: float = UNARY_TIMEOUT) -> None:
        self.timeout = timeout
        self._hub = EnvelopeHub()
        self.api = MethodAccess(self)
        """Typed-looking access: `await client.api.session.select_model({...})`."""

    @abstractmethod
    async def do_fetch(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes | None
    ) -> FetchResponse:
        """One HTTP exchange; return once status and headers are in, the body still streaming.

        Failures to reach the host raise `TransportError`.
        """

    async def aclose(self) -> None:  # noqa: B027 - an optional hook, not abstract
        """Release the transport (nothing to do by default)."""

    async def __aenter__(self) -> AbstractApiClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # ---- the four-quadrant exchanges ---------------------------------------------------------

    async def call(
        self, method: Method[Req, Val], payload: Req | Mapping[str, Any] | None = None
    ) -> RpcResponse[Val]:
        """Call a unary method by its handle (`SESSION_LIST`: the answer is `RpcResponse[ListValue]`);
        the ok value comes back as the method's value model. A key known only at run time goes
        through the map: `client.call(METHODS[key], ...)`."""
        if not isinstance(method, Method):
            raise TypeError(
                f"client.call takes a method handle (contract.methods.SESSION_LIST, ...), not {method!r}"
            )
        key = method.key
        if METHODS.get(key) is not method:
            raise KeyError(f"unknown method {key!r}")
        rpc_id = new_rpc_id()
        request = ClientRequest(rpc_id=rpc_id, method=key, payload=_wire(payload))
        self._hub.emit(request)
        raw = await self._post_json(f"/api/{key}", request.dump(), bounded=not method.user_paced)
        response = self._message(raw, ServerResponse, key)
        self._hub.emit(response)
        if response.rpc_id != rpc_id:
            raise ProtocolError(f"{key}: sent rpcId {rpc_id!r}, the answer echoes {response.rpc_id!r}")
        try:
            typed = response_model(method.value).model_validate({"rpcId": rpc_id, "result": raw["result"]})
        except ValidationError as exc:
            raise ProtocolError(f"{key}: the answer fails {method.value.__name__}: {exc}") from exc
        return typed

    async def respond(
        self, rpc_id: str, result: RpcOk[Any] | RpcErr | Mapping[str, Any]
    ) -> ReceiptAccepted | ReceiptRefused:
        """Answer an answerable server-request; the receipt says whether it was taken."""
        message = ClientResponse.model_validate(
            {"type": "client-response", "rpcId": rpc_id, "result": _wire(result)}
        )
        self._hub.emit(message)
        raw = await self._post_json("/api/respond", message.dump())
        try:
            receipt: ReceiptAccepted | ReceiptRefused = RPC_RECEIPT.validate_python(raw)
        except ValidationError as exc:
            raise ProtocolError(f"respond: not a receipt: {exc}") from exc
        return receipt

    def stream(self, key: str) -> FrameStream:
        """`events.mux` or `events.host` as `(rpc_id, frame)` pairs; no timeout."""
        headers = {"accept": "text/event-stream", "cache-control": "no-cache"}
        opener = functools.partial(self.do_fetch, "GET", f"/api/{key}", headers, None)
        return FrameStream(key, opener, self._hub.emit)

    def subscribe_envelopes(self, observer: EnvelopeObserver) -> Callable[[], None]:
        """Observe every message of all four kinds, batched per event-loop tick."""
        return self._hub.subscribe(observer)

    # ---- plumbing -----------------------------------------------------------------------------

    async def _post_json(self, path: str, body: dict[str, Any], *, bounded: bool = True) -> Any:
        """POST JSON, expect a 200 with JSON; timeouts and HTTP failures are TransportErrors.

        Bounded by the client's unary timeout unless the method waits for the user."""
        timeout = self.timeout if bounded else None
        try:
            async with asyncio.timeout(timeout):
                response = await self.do_fetch("POST", path, JSON_HEADERS, json_bytes(body))
                try:
                    content = await response.read()
                finally:
                    await response.aclose()
        except TimeoutError as exc:
            raise TransportError(f"POST {path} timed out after {timeout} s") from exc
        if response.status != 200:
            text = content[:200].decode("utf-8", errors="replace")
            raise TransportError(f"POST {path}: HTTP {response.status}: {text}", status=response.status)
        try:
            return from_json(content, allow_inf_nan=False)  # pydantic-core's parser: large pages fast
        except ValueError as exc:
            raise ProtocolError(f"POST {path}: the answer is not JSON") from exc

    @staticmethod
    def _message(raw: Any, kind: type[Any], key: str) -> Any:
        try:
            message = RPC_MESSAGE.validate_python(raw)
        except ValidationError as exc:
            raise ProtocolError(f"{key}: not a valid message: {exc}") from exc
        if not isinstance(message, kind):
            raise ProtocolError(f"{key}: expected {kind.__name__}, got {message.type}")
        return message


class MethodAccess:
    """`client.api.<domain>.<snake_verb>(payload)`, derived from the method map."""

    def __init__(self, client: AbstractApiClient) -> None:
        self._client = client

    def __getattr__(self, domain: str) -> DomainAccess:
        if domain.startswith("_") or not any(m.domain == domain for m in METHODS.values()):
            raise AttributeError(f"no domain {domain!r} in the method map")
        return DomainAccess(self._client, domain)


class DomainAccess:
    """The methods of one domain, by their Python attribute names."""

    def __init__(self, client: AbstractApiClient, domain: str) -> None:
        self._client = client
        self._domain = domain

    def __getattr__(self, attr: str) -> Callable[..., Awaitable[RpcResponse[Any]]]:
        for m in METHODS.values():
            if m.domain == self._domain and m.attr == attr:
                return functools.partial(self._client.call, m)
        raise AttributeError(f"no method {self._domain}.{attr} in the method map")
