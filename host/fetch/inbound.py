"""The inbound body rules every POST shares: media type (415), size cap (413), JSON (400).

They run before anything else looks at a request, so a cross-site "simple" POST (form or
text) is refused unread and an oversized body is never held whole in memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic_core import PydanticSerializationError, to_json
from starlette.datastructures import Headers
from starlette.types import Receive

from host.textsafe import clean_json, encode_utf8

MAX_BODY = 32 * 1024 * 1024
"""32 MiB: images are the large case."""


class Reject(Exception):
    """A carrier-level refusal: an HTTP status and a short text body."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(f"{status} {text}")
        self.status = status
        self.text = text


class ClientGone(Exception):
    """The client disconnected; nobody is left to answer."""


def is_json_media(headers: Headers) -> bool:
    """`application/json`, parameters such as `charset=utf-8` allowed."""
    media = headers.get("content-type", "").split(";", 1)[0]
    return media.strip().lower() == "application/json"


def check_declared_length(headers: Headers, limit: int) -> None:
    """Refuse early when `Content-Length` already says the body is too big."""
    declared = headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise Reject(413, f"body exceeds {limit} bytes")


async def read_body(receive: Receive, limit: int) -> bytes:
    """The whole body, refused with 413 as soon as it grows past `limit` (chunked too)."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone()
        body += message.get("body", b"")
        if len(body) > limit:
            raise Reject(413, f"body exceeds {limit} bytes")
        if not message.get("more_body", False):
            return bytes(body)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(body: bytes) -> Any:
    """Strict JSON (no NaN/Infinity); anything else is a 400. Lone surrogates that JSON escapes
    can spell (`"\ud800"`) become U+FFFD here, so no request text can poison a session."""
    try:
        return clean_json(json.loads(body, parse_constant=_no_constants))
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise Reject(400, "body is not JSON") from exc


@runtime_checkable
class WireEncoded(Protocol):
    """A method's value that already holds its wire JSON (e.g. a history page spliced from the
    stored events: docs/decisions.md, "History answers spliced"); sent as is."""

    def wire_json(self) -> bytes: ...


@dataclass(frozen=True)
class EncodedJson:
    """JSON bytes already encoded as `json_bytes` would encode them."""

    data: bytes


def json_bytes(value: Any) -> bytes:
    """Compact UTF-8 JSON, the one encoding every response and frame uses. Never fails on a
    lone surrogate (it becomes U+FFFD), so one bad string cannot end an event stream.

    pydantic-core's encoder first (several times faster on large pages, e.g. a compaction's list
    of shadowed seqs); the standard library's, with its surrogate repair, when it refuses."""
    if isinstance(value, EncodedJson):
        return value.data
    try:
        return to_json(value, inf_nan_mode="strings")
    except (PydanticSerializationError, ValueError):
        return encode_utf8(json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False))
