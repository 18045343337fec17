"""An incremental SSE parser that accepts the stream cut at any byte.

Lines are split on raw bytes (`\\r\\n`, `\\n` or `\\r`, per the SSE spec) before decoding, so a
chunk may end inside a UTF-8 character or between `\\r` and `\\n` without harm: line-break bytes
never occur inside a multi-byte UTF-8 sequence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_END = re.compile(rb"\r\n|\r|\n")
MAX_LINE = 64 * 1024 * 1024


class SseTooLong(ValueError):
    """A line grew past the limit without ending: the peer is not speaking SSE."""


@dataclass(frozen=True)
class SseEvent:
    data: str
    event: str = "message"
    id: str | None = None


class SseParser:
    """Feed bytes in, get complete events out; comments are counted, not returned."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self.comments = 0
        self.last_event_id: str | None = None
        self._buffer = bytearray()
        self._skip_lf = False
        self._first_line = True
        self._data: list[str] = []
        self._event = ""

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Consume `chunk`; return the events it completed, in order."""
        if self._skip_lf and chunk:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        buffer = self._buffer
        scanned = len(buffer)  # holds no line break: every earlier one was consumed
        buffer += chunk
        events: list[SseEvent] = []
        start = 0
        for match in _LINE_END.finditer(buffer, scanned):
            line = bytes(buffer[start : match.start()])
            start = match.end()
            if match.group() == b"\r" and start == len(buffer):
                self._skip_lf = True  # a "\n" may follow in the next chunk
            event = self._line(line.decode("utf-8", errors="replace"))
            if event is not None:
                events.append(event)
        del buffer[:start]
        if len(buffer) > self.max_line:
            raise SseTooLong(f"an SSE line exceeds {self.max_line} bytes")
        return events

    def _line(self, line: str) -> SseEvent | None:
        if self._first_line:
            self._first_line = False
            line = line.removeprefix("\ufeff")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            self.comments += 1
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self.last_event_id = value
        return None

    def _dispatch(self) -> SseEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SseEvent(data="\n".join(data), event=event or "message", id=self.last_event_id)
