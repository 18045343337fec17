"""The in-process ASGI driver: real streaming, backpressure, disconnect, failures."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from host.fetch import AsgiAppError, AsgiExchange, drive


def start(send: Send, status: int = 200) -> Any:
    return send(
        {"type": "http.response.start", "status": status, "headers": [(b"x-a", b"1"), (b"x-a", b"2")]}
    )


async def test_chunks_arrive_while_the_app_is_still_running() -> None:
    release = asyncio.Event()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await start(send)
        await send({"type": "http.response.body", "body": b"first", "more_body": True})
        await release.wait()
        await send({"type": "http.response.body", "body": b"second"})

    ex = await drive(app, "GET", "/x")
    assert ex.headers == [("x-a", "1"), ("x-a", "2")]
    body = ex.body()
    assert await asyncio.wait_for(anext(body), 2) == b"first"
    assert not ex.complete
    release.set()
    assert [c async for c in body] == [b"second"]
    assert ex.complete
    await ex.aclose()


async def test_scope_request_body_and_disconnect() -> None:
    seen: list[Message] = []
    scopes: list[Scope] = []
    whole_body = asyncio.Event()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        scopes.append(scope)
        while True:
            message = await receive()
            seen.append(message)
            if not message.get("more_body", True):
                whole_body.set()
            if message["type"] == "http.disconnect":
                break
        await start(send)
        await send({"type": "http.response.body", "body": b"late"})

    async def body() -> Any:
        yield b"a"
        yield b"b"

    ex = AsgiExchange(app, "post", "/p%20q?x=1&y=%20", {"Content-Type": "text/plain"}, body())
    pending = asyncio.ensure_future(ex.start())
    await asyncio.wait_for(whole_body.wait(), 10)
    assert [m.get("body") for m in seen] == [b"a", b"b", b""]
    assert not pending.done()
    ex.disconnect()
    await asyncio.wait_for(pending, 2)
    assert seen[-1] == {"type": "http.disconnect"}
    assert [c async for c in ex.body()] == [b"late"], "sends after a disconnect are still readable"
    await ex.aclose()
    (scope,) = scopes
    assert (scope["method"], scope["path"], scope["query_string"]) == ("POST", "/p q", b"x=1&y=%20")
    assert (b"content-type", b"text/plain") in scope["headers"]
    assert (b"host", b"localhost") in scope["headers"]


async def test_backpressure_holds_the_app_when_the_reader_lags() -> None:
    sent = 0

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        nonlocal sent
        await start(send)
        for _ in range(100):
            await send({"type": "http.response.body", "body": b"x", "more_body": True})
            sent += 1
        await send({"type": "http.response.body", "body": b""})

    ex = await drive(app, "GET", "/", max_buffered_chunks=4)
    await asyncio.sleep(0.05)
    assert sent <= 5
    assert len([c async for c in ex.body()]) == 100
    await ex.aclose()


async def test_aclose_cancels_an_app_that_ignores_disconnect() -> None:
    cancelled = asyncio.Event()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await start(send)
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    ex = await drive(app, "GET", "/", close_grace=0.1)
    await asyncio.wait_for(ex.aclose(), 2)
    assert cancelled.is_set()


async def test_app_failures() -> None:
    async def silent(scope: Scope, receive: Receive, send: Send) -> None:
        return

    async def crashes(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("early")

    async def breaks_off(scope: Scope, receive: Receive, send: Send) -> None:
        await start(send)
        await send({"type": "http.response.body", "body": b"part", "more_body": True})
        raise RuntimeError("late")

    with pytest.raises(AsgiAppError, match="without a response"):
        await drive(silent, "GET", "/")
    with pytest.raises(AsgiAppError) as caught:
        await drive(crashes, "GET", "/")
    assert isinstance(caught.value.__cause__, RuntimeError)
    ex = await drive(breaks_off, "GET", "/")
    body = ex.body()
    assert await anext(body) == b"part"
    with pytest.raises(AsgiAppError, match="before finishing"):
        await anext(body)
    await ex.aclose()


async def test_caller_cancelled_while_waiting_for_the_head_disconnects_the_app() -> None:
    gone = asyncio.Event()
    waiting = asyncio.Event()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()  # the body
        waiting.set()  # the caller is now waiting for the head
        if (await receive())["type"] == "http.disconnect":
            gone.set()

    task = asyncio.ensure_future(drive(app, "POST", "/", body=b"{}"))
    await asyncio.wait_for(waiting.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gone.is_set()
