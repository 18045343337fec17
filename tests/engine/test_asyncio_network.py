"""The providers' network on asyncio's transports (host/engine/llm/asyncio_network.py), against
real peers on loopback: a provider over TLS or through a proxy from the environment,
back-pressure on a fast sender, the end of a connection, and the client httpx builds. The
adapter's own tests (test_llm_openai.py: read timeouts, resets, refused connections, cancels,
kept connections) run on it too."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx
import pytest

from host.engine.llm import LlmError, LlmRequest, OpenAICompatibleAdapter
from host.engine.llm.asyncio_network import HIGH_WATER, AsyncioBackend, AsyncioStream, on_asyncio
from tests.support.machine import need
from tests.support.scripted_llm import Reply, ScriptedLlmServer

FAST: dict[str, Any] = {"retry_base_delay": 0.01, "retry_max_delay": 0.05}


def certificate(folder: Path) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 and its key (files)."""
    need(shutil.which("openssl") is not None, "openssl is not installed (scripts/install.sh --dev)")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return str(cert), str(key)


async def answer(base_url: str, **options: Any) -> str:
    adapter = OpenAICompatibleAdapter(base_url, **{**FAST, **options})
    try:
        request = LlmRequest(model="scripted-small", messages=[], system="hi")
        chunks = [chunk async for chunk in adapter.stream(request)]
    finally:
        await adapter.aclose()
    return "".join(c.text for c in chunks if c.type == "text-delta")


async def test_a_provider_over_tls_streams_when_its_certificate_is_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = certificate(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", cert)  # how a person trusts their own provider's CA
    with ScriptedLlmServer(tls=(cert, key)) as server:
        server.enqueue(Reply(text="Streamed over TLS, every character.", chunk_size=3))
        assert server.base_url.startswith("https://")
        assert await answer(server.base_url) == "Streamed over TLS, every character."


async def test_a_provider_whose_certificate_is_not_trusted_fails_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = certificate(tmp_path)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with ScriptedLlmServer(tls=(cert, key)) as server:
        server.enqueue(Reply(text="never read"))
        with pytest.raises(LlmError) as caught:
            await asyncio.wait_for(answer(server.base_url, max_retries=0), 30)
    assert "connection failed (ConnectError)" in str(caught.value)
    assert server.requests == []  # nothing was sent over a connection it could not trust


async def test_a_fast_sender_is_paused_while_the_reader_lags_and_nothing_is_lost() -> None:
    sent = bytes(range(256)) * (4 * HIGH_WATER // 256)

    async def send_all(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(sent)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(send_all, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=10)
    assert isinstance(stream, AsyncioStream)
    try:
        paused = False
        got = bytearray()
        first = await stream.read(4096, timeout=10)
        got += first
        for _ in range(200):  # the reader lags: the sender fills the buffer meanwhile
            await asyncio.sleep(0.01)
            if stream._reader.paused:
                paused = True
                break
        while chunk := await stream.read(65536, timeout=10):
            got += chunk
        assert paused, "the transport was never paused with more than HIGH_WATER bytes unread"
        assert bytes(got) == sent
        assert stream.get_extra_info("is_readable")  # ended: a kept connection is not reused
    finally:
        await stream.aclose()
        server.close()
        await server.wait_closed()


async def test_a_read_with_nothing_coming_ends_at_its_timeout() -> None:
    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # says nothing until the client goes

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=10)
    try:
        with pytest.raises(httpcore.ReadTimeout):
            await stream.read(1024, timeout=0.2)
        assert not stream.get_extra_info("is_readable")
        await stream.write(b"still open", timeout=5)
    finally:
        await stream.aclose()
        server.close()
        await server.wait_closed()


async def test_a_refused_connection_is_a_connect_error() -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(httpcore.ConnectError):
        await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)


def test_the_client_runs_its_own_connections_on_this_network() -> None:
    """`on_asyncio` sets the network of the pool httpx built for the client: an httpx that moves
    it fails here, not in a person's first turn."""
    client = on_asyncio(httpx.AsyncClient())
    assert isinstance(client._transport._pool._network_backend, AsyncioBackend)  # type: ignore[attr-defined]


async def forward_proxy(seen: list[str]) -> asyncio.Server:
    """A plain HTTP forward proxy on loopback: each request line is kept in `seen` (the client
    asks in absolute form), then the connection is joined to the host it names."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        line = head.split(b"\r\n", 1)[0].decode()
        seen.append(line)
        method, url, version = line.split(" ")
        target = urlsplit(url)
        up_reader, up_writer = await asyncio.open_connection(target.hostname, target.port)
        origin_form = f"{method} {target.path} {version}".encode()  # as a forward proxy passes it on
        up_writer.write(origin_form + head[len(line) :])
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer), return_exceptions=True)

    return await asyncio.start_server(handle, "127.0.0.1", 0)


async def test_a_proxy_from_the_environment_still_carries_the_stream(
    scripted_llm: ScriptedLlmServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    proxy = await forward_proxy(seen)
    port = proxy.sockets[0].getsockname()[1]
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    try:
        scripted_llm.enqueue(Reply(text="Through the proxy.", chunk_size=4))
        assert await answer(scripted_llm.base_url) == "Through the proxy."
    finally:
        proxy.close()
    assert seen == [f"POST {scripted_llm.base_url}/chat/completions HTTP/1.1"]


async def test_a_unix_socket_connection_carries_both_ways(tmp_path: Path) -> None:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write((await reader.readexactly(5)).upper())
        await writer.drain()
        writer.close()

    path = str(tmp_path / "provider.sock")
    server = await asyncio.start_unix_server(echo, path)
    stream = await AsyncioBackend().connect_unix_socket(path, timeout=5)
    try:
        await stream.write(b"hello", timeout=5)
        assert await stream.read(64, timeout=5) == b"HELLO"
        assert await stream.read(64, timeout=5) == b""  # the peer closed
    finally:
        await stream.aclose()
        server.close()
        await server.wait_closed()


async def test_a_kept_connection_the_server_closed_is_not_reused() -> None:
    """httpcore asks `is_readable` before it reuses an idle connection: one the server has
    closed meanwhile must read as such, or the next request would go to a dead socket."""
    connections: list[int] = []

    async def answer_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.close()  # keep-alive said nothing: the server ends it when it likes

    server = await asyncio.start_server(answer_once, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with on_asyncio(httpx.AsyncClient()) as client:
        try:
            first = await client.get(f"http://127.0.0.1:{port}/a")
            await asyncio.sleep(0.4)  # the server has closed the kept connection
            second = await client.get(f"http://127.0.0.1:{port}/b")
        finally:
            server.close()
            await server.wait_closed()
    assert (first.text, second.text) == ("ok", "ok")
    assert len(connections) == 2
