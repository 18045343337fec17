"""The raw ASGI pieces the scripted provider (tests/support/scripted_llm.py) answers with: a JSON
response, one SSE event, a body read, a wait the client's going away cuts short."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class Dropped(Exception):
    """Raised inside the ASGI app to make uvicorn abort the connection."""


async def read_body(receive: Receive) -> bytes:
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return body
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def send_json(send: Send, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
    raw = json.dumps(body).encode()
    hdrs = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    hdrs += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": hdrs})
    await send({"type": "http.response.body", "body": raw, "more_body": False})


async def send_sse(send: Send, payload: dict[str, Any]) -> None:
    data = b"data: " + json.dumps(payload).encode() + b"\n\n"
    await send({"type": "http.response.body", "body": data, "more_body": True})


async def sleep_unless(gone: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(gone.wait(), seconds)
