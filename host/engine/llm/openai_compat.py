"""The `openai-compatible` adapter: any streaming `/v1/chat/completions` endpoint, over httpx.

Retries 429/5xx/connection failures with exponential backoff (honouring `Retry-After`) but never
once a chunk has been yielded; cancelling the consuming task closes the HTTP stream at once
(the `async with` around the response exits). The API key travels only in the Authorization
header: it is never logged and never part of a repr or an exception message.

A provider that sends nothing for `idle_timeout` seconds (no headers, or no byte mid-stream) is
retried once and then fails the turn with a plain message; a chunk of an unexpected shape ends
the turn with a message that names what was wrong, never a Python error text.
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

from contract.llm import DiscoveredModelView
from host.engine.llm.base import LlmError, LlmRequest
from host.engine.llm.openai_format import ChunkAssembler, MalformedChunk, to_openai_messages, to_openai_tools
from host.textsafe import clean_json

log = logging.getLogger(__name__)

DEFAULT_IDLE_TIMEOUT = 60.0
RETRY_STATUSES = frozenset({408, 409, 425, 429})
MAX_RETRY_AFTER = 60.0
IDLE_RETRIES = 1
"""A silent provider is asked once more, then the turn fails (not after minutes of retries)."""
LIST_TIMEOUT = 15.0


def timeouts(idle: float) -> httpx.Timeout:
    """`read` bounds the wait for the response headers and for every later byte of the stream."""
    return httpx.Timeout(connect=15.0, read=idle, write=30.0, pool=15.0)


class _Failure(Exception):
    """One failed attempt: why, whether another attempt may help and how long to wait."""

    def __init__(
        self,
        reason: str,
        *,
        status: int | None = None,
        retryable: bool,
        retry_after: float | None = None,
        idle: bool = False,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.idle = idle

    def scrubbed(self, scrub: Callable[[str], str]) -> _Failure:
        """The same failure with the API key (echoed back by some servers) taken out."""
        reason = scrub(self.reason)
        if reason == self.reason:
            return self
        return _Failure(
            reason, status=self.status, retryable=self.retryable, retry_after=self.retry_after, idle=self.idle
        )


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
        body = clean_json(await self._body(request))  # history from before this guard, too
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
                except _Failure as raw:
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
        try:
            client = await self._http()
            async with client.stream("POST", url, json=body, headers=self._headers()) as response:
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
        except httpx.ReadTimeout:
            silent = f"the provider sent nothing for {self.idle_timeout:g} s"
            raise _Failure(silent, retryable=True, idle=True) from None
        except httpx.TimeoutException as exc:
            raise _Failure(f"timed out ({type(exc).__name__})", retryable=True) from None
        except httpx.TransportError as exc:
            raise _Failure(f"connection failed ({type(exc).__name__})", retryable=True) from None
        except MalformedChunk as exc:
            raise _Failure(f"the provider sent {exc}", retryable=False) from None
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
        if max_tokens := request.max_tokens or self.max_tokens:
            body["max_tokens"] = max_tokens
        effort = request.reasoning_effort or self.default_effort
        if effort and effort in self.efforts(request.model):
            body["reasoning_effort"] = effort
        return body

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        backoff = min(self.retry_base_delay * (2.0 ** (attempt - 1)), self.retry_max_delay)
        return backoff * (1 + random.uniform(0, 0.2))

    def _error(self, failure: _Failure, attempt: int, *, streamed: bool) -> LlmError:
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
                raise _status_failure(response)
            return _model_list(_json(response))
        except _Failure as exc:
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
            client = await asyncio.to_thread(httpx.AsyncClient, timeout=self._timeout, follow_redirects=False)
            if self._client is None or self._client.is_closed:
                self._client = client
            else:  # another request built one meanwhile
                await client.aclose()
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
    """The `data` payloads of a server-sent event stream (comments and other fields skipped).

    Parsed from the bytes: lines end only at CR, LF or CRLF (a JSON string may hold a raw
    U+2028, which a general line splitter would cut), and a payload is decoded once."""
    data: list[bytes] = []
    partial = b""
    skip_lf = False
    async for raw in response.aiter_bytes():
        if not raw:
            continue
        if skip_lf and raw.startswith(b"\n"):
            raw = raw[1:]
        skip_lf = False
        if b"\r" in raw:
            skip_lf = raw.endswith(b"\r")  # its LF may start the next read
            raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = (partial + raw).split(b"\n")
        partial = lines.pop()
        for line in lines:
            if line:
                _field(line, data)
            elif data:
                yield _payload(data)
                data = []
    if partial:
        _field(partial, data)
    if data:
        yield _payload(data)


def _field(line: bytes, data: list[bytes]) -> None:
    """One SSE line: a `data` value is kept; comments and other fields are skipped."""
    name, _, value = line.partition(b":")
    if name == b"data":
        data.append(value[1:] if value.startswith(b" ") else value)


def _payload(data: list[bytes]) -> str:
    return b"\n".join(data).decode("utf-8", "replace")


def _parse_event(event: str) -> dict[str, Any]:
    try:
        data = json.loads(event)
    except ValueError:
        raise _Failure("the server sent a malformed stream event", retryable=False) from None
    if "\\u" in event:  # only an escape can make a lone surrogate: it must not poison the session
        data = clean_json(data)
    if not isinstance(data, dict):
        raise _Failure("the server sent a malformed stream event", retryable=False)
    if "error" in data and not data.get("choices"):
        raise _Failure(f"the server reported an error: {_error_text(data)}", retryable=False)
    return data


def _model_list(body: dict[str, Any]) -> list[DiscoveredModelView]:
    data = body.get("data")
    if not isinstance(data, list):
        raise _Failure("the server's model list has no `data` array", retryable=False)
    seen: dict[str, DiscoveredModelView] = {}
    for entry in data:
        if not isinstance(entry, dict):
            continue
        model_id = entry.get("id")
        if not isinstance(model_id, str) or not model_id.strip() or model_id in seen:
            continue
        window = entry.get("context_length") or entry.get("context_window")
        seen[model_id] = DiscoveredModelView(
            id=model_id,
            name=entry["name"] if isinstance(entry.get("name"), str) and entry["name"] else None,
            context_window=window if isinstance(window, int) and window > 0 else None,
        )
    return list(seen.values())


def _as_chunk(completion: dict[str, Any]) -> dict[str, Any]:
    """A non-streamed completion reshaped as one chunk (tool calls numbered by position)."""
    for choice in completion.get("choices") or []:
        message = choice.get("message") if isinstance(choice, dict) else None
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for index, call in enumerate(calls if isinstance(calls, list) else []):
            if isinstance(call, dict):
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
