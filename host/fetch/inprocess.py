"""`InProcessApiClient`: the contract spoken straight into the ASGI app, no socket at all.

Used headless (`harnessdesk prompt`) and in tests; streaming is real because the driver hands
over each body chunk as the app sends it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from starlette.types import ASGIApp

from host.fetch.asgi_driver import AsgiAppError, AsgiExchange
from host.fetch.client import UNARY_TIMEOUT, AbstractApiClient
from host.fetch.errors import TransportError
from host.fetch.fetch_response import FetchResponse, header_map


class InProcessApiClient(AbstractApiClient):
    """A client over `to_fetch_handler(api)` (or any ASGI app) in this event loop."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        timeout: float = UNARY_TIMEOUT,
        extensions: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(timeout=timeout)
        self.app = app
        self.extensions = dict(extensions or {})

    async def do_fetch(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes | None
    ) -> FetchResponse:
        exchange = AsgiExchange(self.app, method, path, headers, body, extensions=self.extensions)
        try:
            await exchange.start()
        except AsgiAppError as exc:
            raise TransportError(f"{method} {path}: {exc}") from exc
        return FetchResponse(
            status=exchange.status,
            headers=header_map(exchange.headers),
            body=_body(exchange, method, path),
            aclose=exchange.aclose,
        )


async def _body(exchange: AsgiExchange, method: str, path: str) -> AsyncIterator[bytes]:
    try:
        async for chunk in exchange.body():
            yield chunk
    except AsgiAppError as exc:
        raise TransportError(f"{method} {path}: {exc}") from exc
