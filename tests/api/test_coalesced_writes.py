"""The served API answers in one TCP segment (host/server/write_batching.py), byte for byte the same.

A real host behind the real site on uvicorn, a raw socket as the client; the kernel's own count
of data segments the client received (`TCP_INFO`, Linux) is the measure, and plain uvicorn h11
on the same host shows it can tell the difference (two segments: head, then body).
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.paths import webui_dir
from host.server.binding import bind_socket
from host.server.peers import SandboxPeers
from host.server.run import LoopbackServer
from host.server.site import build_site
from tests.api.conftest import Host

TCPI_DATA_SEGS_IN = 152
"""Offset of `tcpi_data_segs_in` (u32) in Linux's `struct tcp_info` (since Linux 4.6)."""

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="TCP_INFO segment counts are Linux's")


Served = tuple[LoopbackServer, asyncio.Task[None]]


async def serve(host: Host, http: type[asyncio.Protocol] | str | None) -> Served:
    assert host.token is not None
    site = build_site(host.runtime.app, webui_dir(), token=host.token, peers=host.runtime.peers)
    sock = bind_socket("127.0.0.1", 0)
    server = LoopbackServer(site, sock) if http is None else LoopbackServer(site, sock, http=http)
    ready = asyncio.Event()
    task = asyncio.create_task(server.serve(on_ready=ready.set))
    await asyncio.wait_for(ready.wait(), 30)
    return server, task


def request_bytes(port: int, token: str, *, close: bool = False) -> bytes:
    body = json.dumps(
        {"type": "client-request", "rpcId": "r1", "method": "host.describe", "payload": {}}
    ).encode()
    head = (
        f"POST /api/host.describe HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n" + ("Connection: close\r\n" if close else "") + "\r\n"
    )
    return head.encode() + body


def read_answer(sock: socket.socket) -> tuple[bytes, bytes]:
    """(head, body) of one response, read to its Content-Length."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed mid-head: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    length = next(int(v.split(b":", 1)[1]) for v in lines if v.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "connection closed mid-body"
        body += chunk
    return head, body


def one_call(port: int, token: str, *, close: bool = False) -> tuple[int | None, Any, bytes]:
    """(data segments received, parsed answer, the rest read after it) over a fresh connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(request_bytes(port, token, close=close))
        head, body = read_answer(sock)
        assert head.startswith(b"HTTP/1.1 200"), head
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
        known = len(info) >= TCPI_DATA_SEGS_IN + 4
        segments = struct.unpack_from("I", info, TCPI_DATA_SEGS_IN)[0] if known else None
        rest = b""
        if close:
            while chunk := sock.recv(65536):
                rest += chunk
        return segments, json.loads(body), rest


async def call_in_thread(port: int, token: str, *, close: bool = False) -> tuple[int | None, Any, bytes]:
    return await asyncio.to_thread(one_call, port, token, close=close)


async def stop(server: LoopbackServer, task: asyncio.Task[None]) -> None:
    server.stop()
    await asyncio.wait_for(task, 30)


@pytest.mark.parametrize("carrier", ["http"])
async def test_an_answer_leaves_in_one_segment_and_plain_h11_takes_two(host: Host) -> None:
    assert host.token is not None
    coalesced = await serve(host, None)
    plain = await serve(host, "h11")
    try:
        segments, answer, _ = await call_in_thread(coalesced[0].port, host.token)
        if segments is None:
            pytest.skip("this kernel's TCP_INFO has no tcpi_data_segs_in")
        plain_segments, plain_answer, _ = await call_in_thread(plain[0].port, host.token)
    finally:
        await stop(*coalesced)
        await stop(*plain)
    assert answer["result"]["ok"] is True, answer
    assert answer == plain_answer  # the same answer either way
    assert segments == 1
    assert plain_segments == 2  # status line and headers, then the body


@pytest.mark.parametrize("carrier", ["http"])
async def test_connection_close_sends_the_whole_answer_before_closing(host: Host) -> None:
    assert host.token is not None
    server, task = await serve(host, None)
    try:
        _, answer, rest = await call_in_thread(server.port, host.token, close=True)
    finally:
        await stop(server, task)
    assert answer["rpcId"] == "r1" and answer["result"]["ok"] is True
    assert rest == b""  # closed right after the answer, nothing after it


def test_the_served_site_uses_the_coalescing_protocol(tmp_path: Path) -> None:
    """The product's server (not only this test's) gets it: `LoopbackServer`'s default."""
    from host.server.write_batching import CoalescingH11Protocol

    site = build_site(lambda *_: None, webui_dir(), token="t" * 32, peers=SandboxPeers())  # type: ignore[arg-type]
    server = LoopbackServer(site, bind_socket("127.0.0.1", 0))
    try:
        server.server.config.load()
        assert server.server.config.http_protocol_class is CoalescingH11Protocol
    finally:
        server.sock.close()
