"""The wire of an OpenAI-compatible endpoint, apart from the adapter that drives it
(host/engine/llm/openai_compat.py): the server-sent events of a stream, a stream event or a
response body parsed into plain data, the model list, and a refused request read as a `Failure`
(its text, whether another attempt may help, and how long `Retry-After` asks to wait)."""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

import httpx
import orjson

from contract.llm import DiscoveredModelView
from host.textsafe import clean_json

RETRY_STATUSES = frozenset({408, 409, 425, 429})
MAX_RETRY_AFTER = 60.0


class Failure(Exception):
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

    def scrubbed(self, scrub: Callable[[str], str]) -> Failure:
        """The same failure with the API key (echoed back by some servers) taken out."""
        reason = scrub(self.reason)
        if reason == self.reason:
            return self
        return Failure(
            reason, status=self.status, retryable=self.retryable, retry_after=self.retry_after, idle=self.idle
        )


async def sse_events(response: httpx.Response) -> AsyncGenerator[str, None]:
    """The `data` payloads of a server-sent event stream (comments and other fields skipped).

    Parsed from the bytes: lines end only at CR, LF or CRLF (a JSON string may hold a raw
    U+2028, which a general line splitter would cut), and a payload is decoded once."""
    data: list[bytes] = []
    partial = b""
    skip_lf = False
    # the body as it came when it is not compressed: one decoding layer less per streamed
    # delta (docs/decisions/performance-under-load.md)
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    body = response.aiter_raw() if encoding in ("", "identity") else response.aiter_bytes()
    async for raw in body:
        if not raw:
            continue
        if (
            not partial
            and not data
            and not skip_lf
            and raw.startswith(b"data: ")
            and raw.find(b"\n") == len(raw) - 2
            and raw.endswith(b"\n\n")
            and b"\r" not in raw
        ):
            # a read holding exactly one one-line event, as a provider sends each delta: what
            # the general path below would yield, without splitting (docs/decisions/per-delta-stream-work.md)
            yield raw[6:-2].decode("utf-8", "replace")
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


def loads(event: str) -> Any:
    """One event's JSON: orjson's parse (a fifth of json's cost, once per streamed delta), and
    json's where orjson refuses — NaN, an overflowing number, a lone surrogate escape — so what
    is accepted is what json accepts (docs/decisions/per-delta-stream-work.md)."""
    try:
        return orjson.loads(event)
    except orjson.JSONDecodeError:
        return json.loads(event)


def parse_event(event: str) -> dict[str, Any]:
    try:
        data = loads(event)
    except ValueError:
        raise Failure("the server sent a malformed stream event", retryable=False) from None
    if "\\u" in event:  # only an escape can make a lone surrogate: it must not poison the session
        data = clean_json(data)
    if not isinstance(data, dict):
        raise Failure("the server sent a malformed stream event", retryable=False)
    if "error" in data and not data.get("choices"):
        raise Failure(f"the server reported an error: {error_text(data)}", retryable=False)
    return data


def model_list(body: dict[str, Any]) -> list[DiscoveredModelView]:
    data = body.get("data")
    if not isinstance(data, list):
        raise Failure("the server's model list has no `data` array", retryable=False)
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


def as_chunk(completion: dict[str, Any]) -> dict[str, Any]:
    """A non-streamed completion reshaped as one chunk (tool calls numbered by position)."""
    for choice in completion.get("choices") or []:
        message = choice.get("message") if isinstance(choice, dict) else None
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for index, call in enumerate(calls if isinstance(calls, list) else []):
            if isinstance(call, dict):
                call.setdefault("index", index)
    return completion


def response_json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = clean_json(response.json())
    except ValueError:
        raise Failure(
            "the server answered with invalid JSON", status=response.status_code, retryable=False
        ) from None
    if not isinstance(data, dict):
        raise Failure("the server answered with unexpected JSON", retryable=False)
    return data


def status_failure(response: httpx.Response) -> Failure:
    status = response.status_code
    try:
        detail = error_text(response.json())
    except ValueError:
        detail = response.text[:300].strip()
    retryable = status in RETRY_STATUSES or (status >= 500 and status not in (501, 505))
    retry_after = retry_after_seconds(response.headers)
    if retry_after is not None and retry_after > MAX_RETRY_AFTER:
        retryable = False
    reason = f"HTTP {status}" + (f": {detail}" if detail else "")
    return Failure(reason, status=status, retryable=retryable, retry_after=retry_after)


def error_text(body: Any) -> str:
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            return str(error.get("message") or "")[:300]
        return str(error)[:300]
    return ""


def retry_after_seconds(headers: httpx.Headers) -> float | None:
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
