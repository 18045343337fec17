"""The `openai-compatible` adapter: any streaming `/v1/chat/completions` endpoint, over httpx.

Retries 429/5xx/connection failures with exponential backoff (honouring `Retry-After`) but never
once a chunk has been yielded; cancelling the consuming task closes the HTTP stream at once
(the `async with` around the response exits). The API key travels only in the Authorization
header: it is never logged and never part of a repr or an exception message.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

import httpx

from contract.sessions import ModelEntry
from host.engine.llm.base import LlmError, LlmRequest
from host.engine.llm.openai_format import ChunkAssembler, to_openai_messages, to_openai_tools
from host.textsafe import clean_json

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = httpx.Timeout(connect=15.0, read=180.0, write=30.0, pool=15.0)
RETRY_STATUSES = frozenset({408, 409, 425, 429})
MAX_RETRY_AFTER = 60.0


class _Failure(Exception):
    """One failed attempt: why, whether another attempt may help and how long to wait."""

    def __init__(
        self, reason: str, *, status: int | None = None, retryable: bool, retry_after: float | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after

    def scrubbed(self, scrub: Callable[[str], str]) -> _Failure:
        """The same failure with the API key (echoed back by some servers) taken out."""
        reason = scrub(self.reason)
        if reason == self.reason:
            return self
        return _Failure(reason, status=self.status, retryable=self.retryable, retry_after=self.retry_after)


class OpenAICompatibleAdapter:
    supports_tools = True

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        provider: str = "openai-compatible",
        reasoning_efforts: tuple[str, ...] = ("low", "medium", "high"),
        known_models: list[ModelEntry] | None = None,
        max_retries: int = 3,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 20.0,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.reasoning_efforts = reasoning_efforts
        self.known_models = known_models
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self._api_key = api_key or None
        self._timeout = timeout
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
        body = clean_json(await self._body(request))  # history from before this guard, too
        attempt = 0
        self._active += 1
        try:
            while True:
                assembler = ChunkAssembler()
                try:
                    async with aclosing(self._attempt(body, assembler)) as chunks:
                        async for chunk in chunks:
                            yield chunk
                    return
                except _Failure as raw:
                    failure = raw.scrubbed(self._scrub)  # before a log line or a retry event
                    if assembler.emitted or not failure.retryable or attempt >= self.max_retries:
                        raise self._error(failure, attempt, streamed=assembler.emitted > 0) from None
                    attempt += 1
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
        try:
            async with self._http().stream("POST", url, json=body, headers=self._headers()) as response:
                if response.status_code != 200:
                    await response.aread()
                    raise _status_failure(response)
                if not response.headers.get("content-type", "").startswith("text/event-stream"):
                    await response.aread()
                    for chunk in assembler.feed(_as_chunk(_json(response))):
                        yield chunk
                else:
                    done = False
                    async with aclosing(_sse_events(response)) as events:
                        async for event in events:
                            if event == "[DONE]":
                                done = True
                                break
                            for chunk in assembler.feed(_parse_event(event)):
                                yield chunk
                    if not done and not assembler.finished:
                        raise _Failure("stream ended before the answer was complete", retryable=True)
        except httpx.TimeoutException as exc:
            raise _Failure(f"timed out ({type(exc).__name__})", retryable=True) from None
        except httpx.TransportError as exc:
            raise _Failure(f"connection failed ({type(exc).__name__})", retryable=True) from None
        for chunk in assembler.close():
            yield chunk

    async def _body(self, request: LlmRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": await to_openai_messages(request),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = to_openai_tools(request.tools)
        if request.max_tokens:
            body["max_tokens"] = request.max_tokens
        if request.reasoning_effort and request.reasoning_effort in self.reasoning_efforts:
            body["reasoning_effort"] = request.reasoning_effort
        return body

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        backoff = min(self.retry_base_delay * (2.0 ** (attempt - 1)), self.retry_max_delay)
        return backoff * (1 + random.uniform(0, 0.2))

    def _error(self, failure: _Failure, attempt: int, *, streamed: bool) -> LlmError:
        message = f"{self.provider}: {failure.reason}"
        if attempt:
            message += f" (after {attempt} {'retry' if attempt == 1 else 'retries'})"
        if streamed:
            message += " (the answer was cut off mid-stream)"
        return LlmError(self._scrub(message), status=failure.status, retryable=failure.retryable)

    # ---- models ------------------------------------------------------------------------------

    async def list_models(self) -> list[ModelEntry]:
        try:
            response = await self._http().get(f"{self.base_url}/models", headers=self._headers())
            if response.status_code != 200:
                raise _status_failure(response)
            data = _json(response).get("data") or []
            models = [ModelEntry(model=str(m["id"])) for m in data if isinstance(m, dict) and m.get("id")]
        except (_Failure, httpx.TransportError, KeyError, TypeError) as exc:
            reason = self._scrub(exc.reason) if isinstance(exc, _Failure) else type(exc).__name__
            if self.known_models:
                log.warning("%s: listing models failed (%s); using the known list", self.provider, reason)
                return list(self.known_models)
            status = exc.status if isinstance(exc, _Failure) else None
            raise LlmError(f"{self.provider}: listing models failed: {reason}", status=status) from None
        if self.known_models:
            labels = {m.model: m for m in self.known_models}
            models = [labels.get(m.model, m) for m in models]
        return models

    # ---- plumbing ----------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream, application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _http(self) -> httpx.AsyncClient:
        if self._client is None or self._client.is_closed:
            self._client = httpx.AsyncClient(timeout=self._timeout, follow_redirects=False)
        return self._client

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


async def _sse_events(response: httpx.Response) -> AsyncGenerator[str, None]:
    """The `data` payloads of a server-sent event stream (comments and other fields skipped)."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def _parse_event(event: str) -> dict[str, Any]:
    try:
        data = clean_json(json.loads(event))  # a "\ud800" escape must not poison the session
    except ValueError:
        raise _Failure("the server sent a malformed stream event", retryable=False) from None
    if not isinstance(data, dict):
        raise _Failure("the server sent a malformed stream event", retryable=False)
    if "error" in data and not data.get("choices"):
        raise _Failure(f"the server reported an error: {_error_text(data)}", retryable=False)
    return data


def _as_chunk(completion: dict[str, Any]) -> dict[str, Any]:
    """A non-streamed completion reshaped as one chunk (tool calls numbered by position)."""
    for choice in completion.get("choices") or []:
        message = choice.get("message") or {}
        for index, call in enumerate(message.get("tool_calls") or []):
            call.setdefault("index", index)
    return completion


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = clean_json(response.json())
    except ValueError:
        raise _Failure(
            "the server answered with invalid JSON", status=response.status_code, retryable=False
        ) from None
    if not isinstance(data, dict):
        raise _Failure("the server answered with unexpected JSON", retryable=False)
    return data


def _status_failure(response: httpx.Response) -> _Failure:
    status = response.status_code
    try:
        detail = _error_text(response.json())
    except ValueError:
        detail = response.text[:300].strip()
    retryable = status in RETRY_STATUSES or (status >= 500 and status not in (501, 505))
    retry_after = _retry_after(response.headers)
    if retry_after is not None and retry_after > MAX_RETRY_AFTER:
        retryable = False
    reason = f"HTTP {status}" + (f": {detail}" if detail else "")
    return _Failure(reason, status=status, retryable=retryable, retry_after=retry_after)


def _error_text(body: Any) -> str:
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            return str(error.get("message") or "")[:300]
        return str(error)[:300]
    return ""


def _retry_after(headers: httpx.Headers) -> float | None:
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
