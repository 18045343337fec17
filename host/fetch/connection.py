"""Tie host-side work to the HTTP connection: a client that goes away cancels it at once.

ASGI reports a closed connection as `http.disconnect` from `receive()`; uvicorn and the
in-process driver both do, whatever their spec version, so we watch for it ourselves rather
than rely on a framework's response class.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import TypeVar

from starlette.types import Receive, Send

from host.fetch.inbound import ClientGone

log = logging.getLogger("host.fetch")
T = TypeVar("T")


async def wait_for_disconnect(receive: Receive) -> None:
    """Return when the client has gone (call only after the request body was read)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def run_unless_disconnected(receive: Receive, work: Awaitable[T]) -> T:
    """Run `work`; if the client disconnects first, cancel it and raise `ClientGone`."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(wait_for_disconnect(receive))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        watcher.cancel()
        await asyncio.gather(task, watcher, return_exceptions=True)
        raise
    watcher.cancel()
    await asyncio.gather(watcher, return_exceptions=True)
    if task.done():
        return task.result()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    raise ClientGone()


async def aclose_quietly(iterator: object) -> None:
    """Close an async iterator if it can be closed; a failing close is logged, not raised."""
    close = getattr(iterator, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception:
        log.exception("closing a host-side stream failed")


async def stream_body(receive: Receive, send: Send, chunks: AsyncIterator[bytes]) -> None:
    """Send `chunks` as the response body until exhausted or the client leaves; close them."""

    async def pump() -> None:
        async for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    try:
        await run_unless_disconnected(receive, pump())
    except ClientGone:
        pass
    finally:
        await aclose_quietly(chunks)


async def start_response(send: Send, status: int, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})


def header_list(values: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in values.items()]
