"""The HTTP carrier: `to_fetch_handler(api)` (server side) and the Python clients.

Every transport (uvicorn, the desktop bridge, `InProcessApiClient`, tests) drives the same
Starlette app, so all of them see the same bytes.
"""

from host.fetch.asgi_driver import AsgiAppError, AsgiExchange, drive
from host.fetch.client import AbstractApiClient
from host.fetch.errors import ProtocolError, TransportError
from host.fetch.fetch_response import FetchResponse
from host.fetch.frame_stream import FrameStream
from host.fetch.handler import to_fetch_handler
from host.fetch.http_client import HttpApiClient
from host.fetch.inprocess import InProcessApiClient
from host.fetch.proxy import ApiProxy, EventsProxy, ExportArchive, UnaryImpl, resolve

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
