"""A client-side SSE stream of typed frames: `(rpc_id, frame)` pairs parsed by the contract.

Malformed frames are logged and skipped (an unknown frame type must not kill the stream);
closing the stream closes the HTTP response, which stops the host-side generator.
"""

from __future__ import annotations

import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

from pydantic import ValidationError

from contract.frames import STREAMS
from contract.rpc import RPC_MESSAGE, ServerRequest
from host.fetch.errors import ProtocolError, TransportError
from host.fetch.fetch_response import FetchResponse
from host.fetch.sse_parser import SseEvent, SseParser, SseTooLong

log = logging.getLogger("host.fetch")

Frame = tuple[str, Any]
"""`(rpc_id, frame)`: the server-request's id and its payload as a contract frame model."""


class FrameStream:
    """`async with client.stream("events.mux") as frames: async for rpc_id, frame in frames`.

    Iterating without `async with` also works; the response closes when the stream ends, on
    a transport error, or on `aclose()`.
    """

    def __init__(
        self,
        key: str,
        open_response: Callable[[], Awaitable[FetchResponse]],
        emit: Callable[[Any], None],
    ) -> None:
        if key not in STREAMS:
            raise ValueError(f"unknown stream {key!r}; known: {sorted(STREAMS)}")
        self.key = key
        self._adapter = STREAMS[key]
        self._open_response = open_response
        self._emit = emit
        self._response: FetchResponse | None = None
        self._parser = SseParser()
        self._ready: deque[Frame] = deque()
        self._closed = False

    @property
    def heartbeats(self) -> int:
        """Comment lines seen so far (the host sends one per quiet interval)."""
        return self._parser.comments

    @property
    def last_event_id(self) -> str | None:
        return self._parser.last_event_id

    @property
    def closed(self) -> bool:
        return self._closed

    async def open(self) -> FrameStream:
        """Send the GET and check it is an event stream (idempotent)."""
        if self._response is not None or self._closed:
            return self
        response = await self._open_response()
        content_type = response.header("content-type") or ""
        if response.status != 200:
            text = await response.read_text(200)
            await response.aclose()
            raise TransportError(
                f"GET /api/{self.key}: HTTP {response.status}: {text}", status=response.status
            )
        if not content_type.startswith("text/event-stream"):
            await response.aclose()
            raise ProtocolError(f"GET /api/{self.key}: expected text/event-stream, got {content_type!r}")
        self._response = response
        return self

    async def aclose(self) -> None:
        """Stop reading and close the response (the host then closes its generator)."""
        self._closed = True
        self._ready.clear()
        response, self._response = self._response, None
        if response is not None:
            await response.aclose()

    async def __aenter__(self) -> FrameStream:
        return await self.open()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    def __aiter__(self) -> FrameStream:
        return self

    async def __anext__(self) -> Frame:
        await self.open()
        while not self._ready:
            if self._closed or self._response is None:
                raise StopAsyncIteration
            try:
                chunk = await anext(self._response.body)
                events = self._parser.feed(chunk)
            except StopAsyncIteration:
                await self.aclose()
                raise
            except SseTooLong as exc:
                await self.aclose()
                raise ProtocolError(str(exc)) from exc
            except BaseException:
                await self.aclose()
                raise
            for event in events:
                frame = self._decode(event)
                if frame is not None:
                    self._ready.append(frame)
        return self._ready.popleft()

    def _decode(self, event: SseEvent) -> Frame | None:
        try:
            message = RPC_MESSAGE.validate_python(json.loads(event.data))
        except ValueError:  # bad JSON and ValidationError alike
            log.warning("%s: dropping a frame that is not a valid message", self.key)
            return None
        if not isinstance(message, ServerRequest):
            log.warning("%s: dropping a %s frame (expected server-request)", self.key, message.type)
            return None
        self._emit(message)
        try:
            frame = self._adapter.validate_python(message.payload)
        except ValidationError as exc:
            log.warning("%s: dropping frame %r: %s", self.key, message.method, exc)
            return None
        if frame.type != message.method:
            log.warning("%s: dropping frame: method %r but type %r", self.key, message.method, frame.type)
            return None
        return message.rpc_id, frame
