"""`HttpApiClient`: the contract over real HTTP (loopback uvicorn), via httpx."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

import httpx

from host.fetch.client import UNARY_TIMEOUT, AbstractApiClient
from host.fetch.errors import TransportError
from host.fetch.fetch_response import FetchResponse, header_map


class HttpApiClient(AbstractApiClient):
    """A client of a host at `base_url`; `token` goes out as `Authorization: Bearer …`.

    httpx's own read timeout is off (streams must idle forever); unary calls are bounded by
    the client's `timeout` instead.
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = UNARY_TIMEOUT,
        connect_timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """`transport`: another way to reach the host (a Unix socket: `httpx.AsyncHTTPTransport(uds=…)`)."""
        super().__init__(timeout=timeout)
        self.base_url = base_url.rstrip("/")
        self._auth = {"authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(None, connect=connect_timeout),
            trust_env=False,  # loopback: never through a proxy from the environment
            transport=transport,
        )

    async def do_fetch(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes | None
    ) -> FetchResponse:
        request = self._http.build_request(
            method, self.base_url + path, headers={**headers, **self._auth}, content=body
        )
        try:
            response = await self._http.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise TransportError(f"{method} {path}: {exc!r}") from exc
        return FetchResponse(
            status=response.status_code,
            headers=header_map(response.headers.multi_items()),
            body=_body(response, method, path),
            aclose=response.aclose,
        )

    async def aclose(self) -> None:
        await self._http.aclose()


async def _body(response: httpx.Response, method: str, path: str) -> AsyncIterator[bytes]:
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except httpx.HTTPError as exc:
        raise TransportError(f"{method} {path}: the body broke off: {exc!r}") from exc
