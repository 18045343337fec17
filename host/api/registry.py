"""How a unary method is implemented: one plain coroutine per key of `contract.methods.METHODS`.

    @implements(SESSION_RENAME)
    async def rename(engine: Engine, p: s.RenameRequest) -> s.RenameValue:
        title, seq = await engine.sessions.rename(p.session_id, p.title)
        return s.RenameValue(title=title, seq=seq)

The function receives the engine and the validated payload (plus the request's `rpc_id` when it
declares that parameter) and returns the method's value model. It signals a business failure by
raising a `contract.errors.BusinessError` (see `host/engine/errors/`); `bind` maps that to the
typed RpcError here, and only here. Anything else is a host bug and propagates (the carrier
answers 500); `CancelledError` propagates too (the carrier answers `cancelled`).

`implements` takes the method's typed handle (`contract.methods`), so mypy fails a handler whose
request or value type is not the row's; registration checks the annotations against the map
again at import time, so a method wired to the wrong models fails before the host starts.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any, Generic, TypeVar, overload

from pydantic import BaseModel

from contract.errors import BusinessError
from contract.methods import METHODS, Method
from contract.rpc import RpcRequest, RpcResponse, fail, ok
from host.engine.engine import Engine
from host.fetch.proxy import UnaryImpl

Handler = Callable[..., Awaitable[BaseModel]]
Req = TypeVar("Req", bound=BaseModel)
Val = TypeVar("Val", bound=BaseModel)

HANDLERS: dict[str, Handler] = {}
"""Method key → its implementation (filled as the domain modules are imported)."""


class Registration(Generic[Req, Val]):
    """What `implements(HANDLE)` returns: it takes only a coroutine of the handle's own request
    and value types, with or without the request's `rpc_id` (checked by mypy and at import)."""

    def __init__(self, method: Method[Req, Val]) -> None:
        if METHODS.get(method.key) is not method:
            raise KeyError(f"not a handle of the method map: {method.key!r}")
        self.method = method

    @overload
    def __call__(
        self, fn: Callable[[Engine, Req], Awaitable[Val]]
    ) -> Callable[[Engine, Req], Awaitable[Val]]: ...

    @overload
    def __call__(
        self, fn: Callable[[Engine, Req, str], Awaitable[Val]]
    ) -> Callable[[Engine, Req, str], Awaitable[Val]]: ...

    def __call__(self, fn: Handler) -> Handler:
        method, key = self.method, self.method.key
        params = list(inspect.signature(fn).parameters)
        if params not in (["engine", "p"], ["engine", "p", "rpc_id"]):
            raise TypeError(f"{fn.__qualname__} must take (engine, p) or (engine, p, rpc_id), not {params}")
        hints = typing.get_type_hints(fn)
        if hints.get("p") is not method.request or hints.get("return") is not method.value:
            raise TypeError(
                f"{fn.__qualname__} must take {method.request.__name__} and return {method.value.__name__}"
            )
        if key in HANDLERS:
            raise TypeError(f"{key} is implemented twice: {HANDLERS[key].__qualname__} and {fn.__qualname__}")
        HANDLERS[key] = fn
        return fn


def implements(method: Method[Req, Val]) -> Registration[Req, Val]:
    """Register the decorated coroutine as the implementation of `method` (its handle)."""
    return Registration(method)


def bind(engine: Engine, key: str) -> UnaryImpl:
    """The carrier-facing coroutine for `key`: narrow request in, narrow response out."""
    handler = HANDLERS[key]
    wants_rpc_id = "rpc_id" in inspect.signature(handler).parameters
    fenced = METHODS[key].subagent_fenced  # the row's policy (contract/methods.py)

    async def call(request: RpcRequest[Any], /) -> RpcResponse[Any]:
        extra = {"rpc_id": request.rpc_id} if wants_rpc_id else {}
        try:
            if fenced:
                await engine.subagents.refuse_subagent(request.payload.session_id)
            value = await handler(engine, request.payload, **extra)
        except BusinessError as exc:
            return fail(request.rpc_id, exc.rpc_error())
        return ok(request.rpc_id, value)

    call.__qualname__ = f"{key}→{handler.__qualname__}"
    return call


def domains(engine: Engine) -> dict[str, SimpleNamespace]:
    """Every registered method bound to `engine`, grouped as the carrier looks them up:
    `domains(e)["session"].select_model` implements `session.selectModel`."""
    grouped: dict[str, dict[str, UnaryImpl]] = {}
    for key in HANDLERS:
        method = METHODS[key]
        grouped.setdefault(method.domain, {})[method.attr] = bind(engine, key)
    return {domain: SimpleNamespace(**impls) for domain, impls in grouped.items()}
