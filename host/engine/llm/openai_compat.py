"""The `openai-compatible` adapter: any streaming `/v1/chat/completions` endpoint, over httpx.

Retries 429/5xx/connection failures with exponential backoff (honouring `Retry-After`) but never
once a chunk has been yielded; cancelling the consuming task closes the HTTP stream at once
(the `async with` around the response exits). The API key travels only in the Authorization
header: it is never logged and never part of a repr or an exception message.

A provider that sends nothing for `idle_timeout` seconds (no headers, or no byte mid-stream) is
retried once and then fails the turn with a plain message; a chunk of an unexpected shape ends
the turn with a message that names what was wrong, never a Python error text. What the wire
says (events, bodies, refusals) is read in host/engine/llm/openai_wire.py.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

import httpx

from contract.llm import DiscoveredModelView
from host.engine.llm import asyncio_network
from host.engine.llm.base import LlmError, LlmRequest
from host.engine.llm.openai_format import ChunkAssembler, MalformedChunk, to_openai_messages
from host.engine.llm.openai_wire import (
    Failure,
    as_chunk,
    model_list,
    parse_event,
    response_json,
    sse_events,
    status_failure,
)
from host.engine.llm.tool_wire import openai_tool
from host.textsafe import clean_json

log = logging.getLogger(__name__)

DEFAULT_IDLE_TIMEOUT = 60.0
IDLE_RETRIES = 1
"""A silent provider is asked once more, then the turn fails (not after minutes of retries)."""
LIST_TIMEOUT = 15.0
BODY_END_WAIT = 0.5
"""After `[DONE]`, how long the rest of the body (its end) is waited for, so that the connection
goes back to the pool for the next request instead of being closed (a new TCP or TLS handshake per
request: docs/decisions/first-token-fan-out.md). A server that keeps the body open is left then."""


def timeouts(idle: float) -> httpx.Timeout:
    """`read` bounds the wait for the response headers and for every later byte of the stream."""
    return httpx.Timeout(connect=15.0, read=idle, write=30.0, pool=15.0)


class OpenAICompatibleAdapter:
    supports_tools = True

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        provider: str = "openai-compatible",
        display_name: str | None = None,
        efforts: Callable[[str], tuple[str, ...]] = lambda model: (),
        default_effort: str | None = None,
        max_tokens: int | None = None,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        max_retries: int = 3,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 20.0,
    ) -> None:
        """`efforts(model)` lists the reasoning efforts a model takes; an effort is sent only then."""
        self.provider = provider
        self.display_name = display_name or provider
        """What errors call the endpoint: the person's name for it, not its id (issue 31, item 8)."""
        self.base_url = base_url.rstrip("/")
        self.efforts = efforts
        self.default_effort = default_effort
        self.max_tokens = max_tokens
        self.idle_timeout = idle_timeout
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self._api_key = api_key or None
        self._timeout = timeouts(idle_timeout)
        self._client: httpx.AsyncClient | None = None
        self._active = 0
        self._closing = False

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"OpenAICompatibleAdapter(provider={self.provider!r}, base_url={self.base_url!r}, key={key})"

    @property
    def has_key(self) -> bool:
        return self._api_key is not None

    # ---- streaming ---------------------------------------------------------------------------

    async def stream(self, request: LlmRequest) -> AsyncIterator[Any]:
        body = await self._body(request)
        attempt = idle_attempts = 0
        self._active += 1
        try:
            while True:
                assembler = ChunkAssembler()
                try:
                    async with aclosing(self._attempt(body, assembler)) as chunks:
                        async for chunk in chunks:
                            yield chunk
                    return
                except Failure as raw:
                    failure = raw.scrubbed(self._scrub)  # before a log line or a retry event
                    out_of_idle = failure.idle and idle_attempts >= IDLE_RETRIES
                    if (
                        assembler.emitted
                        or not failure.retryable
                        or attempt >= self.max_retries
                        or out_of_idle
                    ):
                        raise self._error(failure, attempt, streamed=assembler.emitted > 0) from None
                    attempt += 1
                    idle_attempts += failure.idle
                    delay = self._delay(attempt, failure.retry_after)
                    log.info("%s: retry %d in %.2fs after %s", self.provider, attempt, delay, failure.reason)
                    if request.on_retry is not None:
                        request.on_retry(attempt, int(delay * 1000), failure.reason)
                    await asyncio.sleep(delay)
        finally:
            self._active -= 1
            if self._closing and self._active == 0:
                await self._close_client()

    async def _attempt(self, body: dict[str, Any], assembler: ChunkAssembler) -> AsyncGenerator[Any, None]:
        url = f"{self.base_url}/chat/completions"
        done = False  # `[DONE]` came: the answer was closed and handed on inside the stream
        try:
            client = await self._http()
            async with client.stream("POST", url, json=body, headers=self._headers()) as response:
                if response.status_code != 200:
                    await response.aread()
                    raise status_failure(response)
                if not response.headers.get("content-type", "").startswith("text/event-stream"):
                    await response.aread()
                    for chunk in assembler.feed(as_chunk(response_json(response))):
                        yield chunk
                else:
                    async with aclosing(sse_events(response)) as events:
                        async for event in events:
                            if event == "[DONE]":
                                done = True
                                break
                            for chunk in assembler.feed(parse_event(event)):
                                yield chunk
                        if done:
                            for chunk in assembler.close():  # the answer is whole: hand it on now
                                yield chunk
                            await _body_end(events)
                    if not done and not assembler.finished:
                        raise Failure("stream ended before the answer was complete", retryable=True)
        except httpx.ReadTimeout:
            silent = f"the provider sent nothing for {self.idle_timeout:g} s"
            raise Failure(silent, retryable=True, idle=True) from None
        except httpx.TimeoutException as exc:
            raise Failure(f"timed out ({type(exc).__name__})", retryable=True) from None
        except httpx.TransportError as exc:
            raise Failure(f"connection failed ({type(exc).__name__})", retryable=True) from None
        except MalformedChunk as exc:
            raise Failure(f"the provider sent {exc}", retryable=False) from None
        if not done:
            for chunk in assembler.close():
                yield chunk

    async def _body(self, request: LlmRequest) -> dict[str, Any]:
        """The request's JSON, every string cleaned (history from before this guard, too). The
        tools come cleaned already, once per tool schema (host/engine/llm/tool_wire.py)."""
        head = {
            "model": request.model,
            "messages": await to_openai_messages(request),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        body: dict[str, Any] = dict(clean_json(head))
        if request.tools:
            body["tools"] = [openai_tool(t) for t in request.tools]
        if max_tokens := request.max_tokens or self.max_tokens:
            body["max_tokens"] = max_tokens
        effort = request.reasoning_effort or self.default_effort
        if effort and effort in self.efforts(request.model):
            body["reasoning_effort"] = clean_json(effort)
        return body

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        backoff = min(self.retry_base_delay * (2.0 ** (attempt - 1)), self.retry_max_delay)
        return backoff * (1 + random.uniform(0, 0.2))

    def _error(self, failure: Failure, attempt: int, *, streamed: bool) -> LlmError:
        message = f"{self.display_name}: {failure.reason}"
        if attempt:
            message += f" (after {attempt} {'retry' if attempt == 1 else 'retries'})"
        if streamed:
            message += " (the answer was cut off mid-stream)"
        return LlmError(self._scrub(message), status=failure.status, retryable=failure.retryable)

    # ---- models ------------------------------------------------------------------------------

    async def list_models(self) -> list[DiscoveredModelView]:
        """The endpoint's `GET /models` (deduplicated by id, first wins); raises LlmError."""
        try:
            response = await (await self._http()).get(
                f"{self.base_url}/models", headers=self._headers(), timeout=LIST_TIMEOUT
            )
            if response.status_code != 200:
                raise status_failure(response)
            return model_list(response_json(response))
        except Failure as exc:
            raise LlmError(self._scrub(exc.reason), status=exc.status) from None
        except httpx.TimeoutException:
            raise LlmError(f"{self.base_url} did not answer within {LIST_TIMEOUT:g} s") from None
        except httpx.TransportError as exc:
            raise LlmError(f"cannot reach {self.base_url} ({type(exc).__name__})") from None
        except httpx.InvalidURL:
            raise LlmError(f"{self.base_url} is not a usable URL") from None

    # ---- plumbing ----------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream, application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    async def _http(self) -> httpx.AsyncClient:
        """The adapter's client, built off the event loop on first use: building one loads the
        CA bundle (~30 ms on a quiet machine, 100 to 375 ms under load), which on the loop froze
        every open stream at a session's first remote request."""
        if self._client is None or self._client.is_closed:
            client = await asyncio.to_thread(self._new_client)
            if self._client is None or self._client.is_closed:
                self._client = client
            else:  # another request built one meanwhile
                await client.aclose()
        return self._client

    def _new_client(self) -> httpx.AsyncClient:
        # its connections on asyncio's transports: a stream's many small reads cost less
        # (docs/decisions/a-providers-stream-read-on-asyncio.md)
        return asyncio_network.on_asyncio(httpx.AsyncClient(timeout=self._timeout, follow_redirects=False))

    def _scrub(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    async def aclose(self) -> None:
        """Closes the HTTP client now, or when the last running stream ends."""
        self._closing = True
        if self._active == 0:
            await self._close_client()

    async def _close_client(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


async def _body_end(events: AsyncGenerator[str, None]) -> None:
    """Read what follows `[DONE]` until the body ends (at most BODY_END_WAIT seconds), so that
    httpx keeps the connection; nothing read there matters any more, a failure included."""
    try:
        async with asyncio.timeout(BODY_END_WAIT):
            async for _ in events:
                pass
    except (TimeoutError, httpx.HTTPError):
        pass
