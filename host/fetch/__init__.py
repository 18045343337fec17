"""The HTTP carrier: `to_fetch_handler(api)` (server side) and the Python clients.

Every transport (uvicorn, the desktop bridge, `InProcessApiClient`, tests) drives the same
Starlette app, so all of them see the same bytes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from host.fetch.asgi_driver import AsgiAppError, AsgiExchange, drive
    from host.fetch.client import AbstractApiClient
    from host.fetch.errors import ProtocolError, TransportError
    from host.fetch.fetch_response import FetchResponse
    from host.fetch.frame_stream import FrameStream
    from host.fetch.handler import to_fetch_handler
    from host.fetch.http_client import HttpApiClient
    from host.fetch.inprocess import InProcessApiClient
    from host.fetch.proxy import ApiProxy, EventsProxy, ExportArchive, UnaryImpl, resolve

_WHERE = {
    "AbstractApiClient": "client",
    "ApiProxy": "proxy",
    "AsgiAppError": "asgi_driver",
    "AsgiExchange": "asgi_driver",
    "EventsProxy": "proxy",
    "ExportArchive": "proxy",
    "FetchResponse": "fetch_response",
    "FrameStream": "frame_stream",
    "HttpApiClient": "http_client",
    "InProcessApiClient": "inprocess",
    "ProtocolError": "errors",
    "TransportError": "errors",
    "UnaryImpl": "proxy",
    "drive": "asgi_driver",
    "resolve": "proxy",
    "to_fetch_handler": "handler",
}
"""Each name's module. Loaded on first use: `host.fetch.asgi_driver` (what the desktop bridge
needs) must not drag in the clients, the handler and pydantic while the window starts."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'host.fetch' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"host.fetch.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "AbstractApiClient",
    "ApiProxy",
    "AsgiAppError",
    "AsgiExchange",
    "EventsProxy",
    "ExportArchive",
    "FetchResponse",
    "FrameStream",
    "HttpApiClient",
    "InProcessApiClient",
    "ProtocolError",
    "TransportError",
    "UnaryImpl",
    "drive",
    "resolve",
    "to_fetch_handler",
]
