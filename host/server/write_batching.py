"""One socket write per event-loop step: uvicorn's HTTP/1.1 protocol with coalesced writes.

uvicorn's h11 protocol writes a response's status line and headers, then its body, as separate
`transport.write` calls, and asyncio sends each at once: two TCP segments (TCP_NODELAY is on)
and two wake-ups of the reader for every answer, and one segment per SSE frame in a burst.
Here the writes made in one step of the event loop are joined and leave together at the start
of the next step (docs/decisions.md, "Host-side speed: coalesced writes, one-copy history
answers"): the same bytes, in the same order.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

JOIN_LIMIT = 256 * 1024
"""Pending writes up to this size are joined into one buffer; beyond it each goes as it is
(copying a large body costs more than the extra segment it saves)."""


class CoalescingTransport:
    """A transport whose writes wait for the end of the current loop step, then go as one.

    Everything else (flow control, close, addresses) is the real transport's. `close` sends
    what is pending first, so nothing written is lost; `abort` drops it, as the real one does."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._size = 0
        self._scheduled = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        self._pending.append(bytes(data) if not isinstance(data, bytes) else data)
        self._size += len(data)
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.flush)

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Hand what is pending to the real transport (one write when it is small enough)."""
        self._scheduled = False
        pending, size = self._pending, self._size
        if not pending:
            return
        self._pending, self._size = [], 0
        if self._transport.is_closing():
            return
        if len(pending) == 1 or size > JOIN_LIMIT:
            for data in pending:
                self._transport.write(data)
        else:
            self._transport.write(b"".join(pending))

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + self._size

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending, self._size = [], 0
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class CoalescingH11Protocol(H11Protocol):
    """uvicorn's h11 protocol on a `CoalescingTransport`."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        loop = asyncio.get_running_loop()
        super().connection_made(CoalescingTransport(transport, loop))  # type: ignore[arg-type]
