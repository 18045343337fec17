"""Drive an ASGI app in-process, one HTTP exchange at a time, with real streaming.

No socket and no buffering of whole bodies (httpx's ASGITransport buffers, so it cannot carry
SSE): body chunks reach the caller as the app sends them, and the app waits when the caller
falls behind. `disconnect()` delivers `http.disconnect`, which is how a caller cancels the
host-side work; the in-process client and the desktop bridge both stand on this.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Mapping
from typing import Any
from urllib.parse import unquote

from starlette.types import ASGIApp, Message

from host.fetch.connection import header_list

log = logging.getLogger("host.fetch")

Body = bytes | AsyncIterable[bytes] | None


class AsgiAppError(Exception):
    """The app failed before answering, or broke off a response it had started."""


class AsgiExchange:
    """One request driven through `app`: await `start()`, read `body()`, then `aclose()`."""

    def __init__(
        self,
        app: ASGIApp,
        method: str,
        target: str,
        headers: Mapping[str, str] | None = None,
        body: Body = None,
        *,
        extensions: Mapping[str, Any] | None = None,
        max_buffered_chunks: int = 64,
        close_grace: float = 5.0,
    ) -> None:
        path, _, query = target.partition("?")
        header_pairs = header_list(headers or {})
        if not any(k == b"host" for k, _ in header_pairs):
            header_pairs.append((b"host", b"localhost"))
        self.scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method.upper(),
            "scheme": "http",
            "path": unquote(path),
            "raw_path": path.encode("latin-1"),
            "query_string": query.encode("latin-1"),
            "root_path": "",
            "headers": header_pairs,
            "client": None,
            "server": ("localhost", 80),
            "extensions": dict(extensions or {}),
            "state": {},
        }
        self.app = app
        self.status = 0
        self.headers: list[tuple[str, str]] = []
        self._request_body = body
        self._max_chunks = max_buffered_chunks
        self._grace = close_grace
        self._chunks: deque[bytes] = deque()
        self._complete = False
        self._disconnected = asyncio.Event()
        self._ended = asyncio.Event()  # disconnected, or the response is complete
        self._started = asyncio.Event()
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # ---- the ASGI side ----------------------------------------------------------------------

    async def _request_messages(self) -> AsyncGenerator[Message, None]:
        body = self._request_body
        if body is None or isinstance(body, bytes | bytearray):
            yield {"type": "http.request", "body": bytes(body or b""), "more_body": False}
            return
        async for chunk in body:
            yield {"type": "http.request", "body": bytes(chunk), "more_body": True}
        yield {"type": "http.request", "body": b"", "more_body": False}

    async def _run(self) -> None:
        messages = self._request_messages()

        async def receive() -> Message:
            if not self._ended.is_set():
                try:
                    return await anext(messages)
                except StopAsyncIteration:
                    await self._ended.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.status = int(message["status"])
                self.headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message["headers"]]
                self._started.set()
            elif message["type"] == "http.response.body" and not self._complete:
                while len(self._chunks) >= self._max_chunks and not self._disconnected.is_set():
                    self._changed.clear()
                    await self._changed.wait()
                if message.get("body"):
                    self._chunks.append(bytes(message["body"]))
                if not message.get("more_body", False):
                    self._complete = True
                    self._ended.set()
                self._changed.set()

        try:
            await self.app(self.scope, receive, send)
        finally:
            self._changed.set()
            await messages.aclose()

    # ---- the caller's side ------------------------------------------------------------------

    async def start(self) -> AsgiExchange:
        """Run the app until it starts its response; status and headers are then known."""
        self._task = asyncio.create_task(self._run())
        waiter = asyncio.ensure_future(self._started.wait())
        try:
            await asyncio.wait({waiter, self._task}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            waiter.cancel()
            await self.aclose()
            raise
        waiter.cancel()
        if not self._started.is_set():
            raise AsgiAppError("the app returned without a response") from _failure(self._task)
        return self

    async def body(self) -> AsyncIterator[bytes]:
        """The response body chunk by chunk, as the app sends it.

        After `disconnect()` it still yields what the app sends until the app stops.
        """
        assert self._task is not None, "start() first"
        while True:
            if self._chunks:
                chunk = self._chunks.popleft()
                self._changed.set()
                yield chunk
                continue
            if self._complete:
                return
            if self._task.done():
                if self._disconnected.is_set():
                    return
                raise AsgiAppError("the app ended before finishing its response") from _failure(self._task)
            self._changed.clear()
            await self._changed.wait()

    @property
    def complete(self) -> bool:
        """The app sent its last body chunk."""
        return self._complete

    def disconnect(self) -> None:
        """Tell the app the client is gone (`http.disconnect`); it should stop its work."""
        self._disconnected.set()
        self._ended.set()
        self._changed.set()

    async def finished(self, bound: float) -> bool:
        """Wait at most `bound` seconds for the app to end (after `disconnect()`); whether it did."""
        task = self._task
        if task is None or task.done():
            return True
        await asyncio.wait({task}, timeout=bound)
        return task.done()

    async def aclose(self) -> None:
        """Disconnect if still open, give the app `close_grace` seconds to finish, then cancel."""
        if not self._complete:
            self.disconnect()
        task = self._task
        if task is None:
            return
        if not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), self._grace)
            except TimeoutError:
                task.cancel()
            except asyncio.CancelledError:
                task.cancel()
                raise
            except Exception:
                pass  # reported below
        await asyncio.gather(task, return_exceptions=True)
        error = _failure(task)
        if error is not None:
            log.debug("the app raised after its response", exc_info=error)


def _failure(task: asyncio.Task[None]) -> BaseException | None:
    if not task.done():
        return None
    if task.cancelled():
        return asyncio.CancelledError()
    return task.exception()


async def drive(
    app: ASGIApp,
    method: str,
    target: str,
    headers: Mapping[str, str] | None = None,
    body: Body = None,
    **options: Any,
) -> AsgiExchange:
    """Start one exchange and return it once the app has sent its status and headers."""
    return await AsgiExchange(app, method, target, headers, body, **options).start()
