"""The script of the scripted provider (tests/support/scripted_llm.py): one `Reply` per chat
request, and the deltas a streamed reply is sent as."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

DEFAULT_TEXT = "OK, scripted default reply."
DEFAULT_MODELS = ["scripted-small", "scripted-large"]
PACED_WAIT = 30.0
"""Bound on a paced reply's wait for the test (then the connection is dropped)."""


@dataclass
class Reply:
    """One scripted answer to one chat request."""

    text: str | None = None
    reasoning: str | None = None
    """Streamed as `reasoning_content` deltas before the text (DeepSeek style)."""
    tool_calls: list[tuple[str, str, str]] = field(default_factory=list)
    """(id, name, arguments JSON string) per call, streamed after the text."""
    status: int = 200
    """Non-200 answers with an OpenAI-style error body and no stream."""
    retry_after: float | None = None
    """Sent as a `Retry-After` header (seconds) with an error status."""
    error_message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)
    chunk_size: int = 4
    """Characters per streamed delta."""
    delay: float = 0.0
    """Seconds between streamed deltas (slow streams)."""
    hurry: threading.Event | None = None
    """Once the test sets it, the rest of the deltas go without `delay`: a stream kept long enough
    for any check a loaded machine is slow to make, that need not then be waited out."""
    hang_after: int | None = None
    """After this many deltas stop sending and hold the connection open until the client leaves."""
    drop_after: int | None = None
    """After this many deltas abort the connection mid-body (a connection reset, no [DONE])."""
    usage: dict[str, int] | None = None
    """OpenAI usage object; when None and the request asked for usage, a made-up one is sent."""
    repeat_tool_identity: bool = False
    """llama.cpp style: repeat the tool call id and name on every delta of that call."""
    finish_reason: str | None = None
    """Defaults to `tool_calls` when there are tool calls, else `stop`."""
    stamps: int = 0
    """Stream this many extra text deltas, each `<ns>` = the wall-clock send time (time.time_ns),
    after the text: latency benchmarks measure when each one reaches a client."""
    garbage_after: int | None = None
    """After this many deltas send one malformed SSE data line (not JSON), then carry on."""
    raw: list[Any] | None = None
    """Streamed instead of the scripted deltas, one `data:` event each (objects as JSON, strings
    verbatim), then `[DONE]`: for chunks of a shape no real provider should send."""
    paced: threading.Semaphore | None = None
    """Before each delta but the first, wait (bounded) until the test releases the semaphore: a
    provider that sends the next delta only once the client has shown the previous one."""
    when: str | None = None
    """Answer only a request whose first user message contains this text (the first such reply
    in the queue); replies without it answer any request. Lets concurrent conversations
    (subagents) get their own script whatever order their requests arrive in."""


STAMP: dict[str, Any] = {"content": "<stamp>"}
"""Placeholder delta replaced by the send time when it is sent."""


def first_user_text(request: dict[str, Any]) -> str:
    for message in request.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            return json.dumps(message.get("content"), ensure_ascii=False)
    return ""


def reply_deltas(reply: Reply) -> Iterator[dict[str, Any]]:
    size = max(1, reply.chunk_size)
    for text in pieces(reply.reasoning, size):
        yield {"reasoning_content": text}
    for text in pieces(reply.text, size):
        yield {"content": text}
    for _ in range(reply.stamps):
        yield STAMP
    for index, (call_id, name, arguments) in enumerate(reply.tool_calls):
        identity = {"id": call_id, "type": "function"}
        yield {"tool_calls": [{"index": index, **identity, "function": {"name": name, "arguments": ""}}]}
        for piece in pieces(arguments, size):
            call: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if reply.repeat_tool_identity:
                call = {"index": index, **identity, "function": {"name": name, "arguments": piece}}
            yield {"tool_calls": [call]}


def pieces(text: str | None, size: int) -> Iterator[str]:
    if text:
        for i in range(0, len(text), size):
            yield text[i : i + size]
