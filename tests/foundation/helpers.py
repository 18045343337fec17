"""Raw exchanges with an ASGI app (through the in-process driver) and envelope builders."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable
from typing import Any

from starlette.types import ASGIApp

from contract.methods import AnyMethod
from host.fetch import drive


class Reply:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode()


async def exchange(
    app: ASGIApp,
    method: str,
    target: str,
    body: bytes | AsyncIterable[bytes] | None = None,
    *,
    content_type: str | None = "application/json",
    headers: dict[str, str] | None = None,
) -> Reply:
    all_headers = {} if content_type is None else {"content-type": content_type}
    all_headers |= headers or {}
    ex = await drive(app, method, target, all_headers, body)
    try:
        content = b"".join([chunk async for chunk in ex.body()])
    finally:
        await ex.aclose()
    return Reply(ex.status, dict(ex.headers), content)


def envelope(method: AnyMethod, payload: Any, rpc_id: str = "r-1", **extra: Any) -> bytes:
    """A raw client-request for `method` (its handle), as the wire carries it."""
    return json.dumps(
        {"type": "client-request", "rpcId": rpc_id, "method": method.key, "payload": payload} | extra
    ).encode()


def sse_events(body: bytes) -> list[dict[str, Any]]:
    """The data of every `data:` line of a raw SSE body, parsed."""
    return [
        json.loads(line.removeprefix(b"data: ")) for line in body.split(b"\n") if line.startswith(b"data: ")
    ]
