"""httpcore's network on asyncio's own transports, for the providers' streams
(docs/decisions/a-providers-stream-read-on-asyncio.md).

A provider streams an answer as many small server-sent events, each arriving on its own. httpcore's
default network (anyio) pays per read for what a stream of small reads does not need: each
`receive` that waits resumes the transport's reading and pauses it again (two `epoll_ctl` calls)
and each read opens a cancel scope with a timer for the read timeout. Here a read that finds data
buffered returns it at once; one that waits sets one future and, with a timeout, one timer; the
transport is paused only when more than `HIGH_WATER` bytes wait unread.

What httpcore asks of a network (connect, read, write, close, TLS, the extra info it reads) is
answered with the exceptions it maps from anyio's (`ReadTimeout`, `ConnectError`, ...), so the
adapter sees the same errors either way.
"""

# ruff: noqa: ASYNC109  (httpcore's network interface takes `timeout` arguments)

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Awaitable, Iterable
from typing import Any

import httpcore
import httpx
from httpcore import AsyncNetworkBackend, AsyncNetworkStream

HIGH_WATER = 256 * 1024
"""Bytes buffered unread before the transport stops reading (back-pressure)."""
LOW_WATER = 64 * 1024
"""Bytes left unread when it reads again."""

SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]


class _Reader(asyncio.Protocol):
    """The connection's protocol: what arrived, unread, and the one read that waits for more."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.paused = False
        self.drained: asyncio.Future[None] | None = None
        self.writing_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > HIGH_WATER and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool | None:
        self.eof = True
        self._wake()
        return None  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)

    def _wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)


async def _within(future: asyncio.Future[None], bound: float | None, late: type[Exception]) -> None:
    """Wait for `future`, raising `late` after `bound` seconds (None: no bound)."""
    if bound is None:
        await future
        return

    def expire() -> None:
        if not future.done():
            future.set_exception(late())

    timer = asyncio.get_running_loop().call_later(bound, expire)
    try:
        await future
    finally:
        timer.cancel()


class AsyncioStream(AsyncNetworkStream):
    """One connection: reads, writes, TLS, closing."""

    def __init__(self, transport: asyncio.Transport, reader: _Reader) -> None:
        self._transport = transport
        self._reader = reader

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        reader = self._reader
        if not reader.buffer and not reader.eof:
            reader.waiter = asyncio.get_running_loop().create_future()
            try:
                await _within(reader.waiter, timeout, httpcore.ReadTimeout)
            finally:
                reader.waiter = None
        if not reader.buffer:
            if reader.error is not None:
                raise httpcore.ReadError(str(reader.error))
            return b""  # the peer closed: httpcore reads an end
        data = bytes(reader.buffer[:max_bytes])
        del reader.buffer[:max_bytes]
        if reader.paused and len(reader.buffer) <= LOW_WATER:
            reader.paused = False
            self._transport.resume_reading()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        self._transport.write(buffer)
        reader = self._reader
        if reader.writing_paused:
            reader.drained = asyncio.get_running_loop().create_future()
            try:
                await _within(reader.drained, timeout, httpcore.WriteTimeout)
            finally:
                reader.drained = None
            if reader.error is not None:
                raise httpcore.WriteError(str(reader.error))

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        reader = _Reader()
        try:
            async with asyncio.timeout(timeout):
                tls = await loop.start_tls(
                    self._transport, reader, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            self._transport.close()
            raise httpcore.ConnectTimeout("the TLS handshake timed out") from None
        except (OSError, ssl.SSLError) as exc:
            self._transport.close()
            raise httpcore.ConnectError(str(exc)) from exc
        if tls is None:
            raise httpcore.ConnectError("the connection closed during the TLS handshake")
        reader.connection_made(tls)
        return AsyncioStream(tls, reader)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        if info == "is_readable":
            # httpcore asks before reusing a kept connection: readable there means closed or
            # sent something unasked, so the connection is not reused
            return bool(self._reader.buffer) or self._reader.eof or self._transport.is_closing()
        return None


class AsyncioBackend(AsyncNetworkBackend):
    """httpcore's network on asyncio's transports (see the module's docstring)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> AsyncNetworkStream:
        local = (local_address, 0) if local_address else None
        opening = asyncio.get_running_loop().create_connection(
            _Reader, host, port, local_addr=local, happy_eyeballs_delay=0.25
        )
        return await _connected(opening, f"{host}:{port}", timeout, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SocketOption] | None = None
    ) -> AsyncNetworkStream:
        opening = asyncio.get_running_loop().create_unix_connection(_Reader, path)
        return await _connected(opening, path, timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connected(
    opening: Awaitable[tuple[asyncio.Transport, _Reader]],
    where: str,
    timeout: float | None,
    options: Iterable[SocketOption] | None,
) -> AsyncNetworkStream:
    """The connection `opening` makes, within `timeout`, with httpcore's errors for a failure."""
    try:
        async with asyncio.timeout(timeout):
            transport, reader = await opening
    except TimeoutError:
        raise httpcore.ConnectTimeout(f"connecting to {where} timed out") from None
    except OSError as exc:
        raise httpcore.ConnectError(str(exc)) from exc
    sock: socket.socket | None = transport.get_extra_info("socket")
    for option in options or ():
        if sock is not None:
            sock.setsockopt(*option)
    return AsyncioStream(transport, reader)


def on_asyncio(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """`client` with its own connections (not those through a proxy it was given or found in the
    environment: those stay on httpx's default network) on this network. Set before its first
    request: a pool opens each connection with the network it holds then. (Not `transport=`:
    httpx ignores the environment's proxies for a client given a transport.)"""
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if not isinstance(pool, httpcore.AsyncConnectionPool) or not hasattr(pool, "_network_backend"):
        raise RuntimeError("httpx's client no longer keeps its connection pool where expected")
    pool._network_backend = AsyncioBackend()
    return client
