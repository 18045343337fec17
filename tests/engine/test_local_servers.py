"""`llm.discoverLocal`'s probes (host/engine/llm/local_servers.py): a server that answers slower
than the former 0.3 s bound (as on a loaded machine) is still found; the probes run together,
so a silent port costs one bound, not one per port."""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from host.engine.llm import local_servers
from host.engine.llm.local_servers import Probe, discover_servers
from tests.support.ports import serve_in_thread

SLOW = 0.8
"""Seconds the stand-in waits before it answers: over the former bound, well under the new one."""


@pytest.fixture
def slow_ollama() -> Iterator[int]:
    """An Ollama stand-in that waits SLOW seconds before listing its models."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            time.sleep(SLOW)
            body = json.dumps({"models": [{"name": "qwen2.5-coder:1.5b"}]}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    serve_in_thread(httpd)
    try:
        yield int(httpd.server_address[1])
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def silent_ports() -> Iterator[list[int]]:
    """Three ports that accept connections and never answer."""
    socks = [socket.socket() for _ in range(3)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
    try:
        yield [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


def test_the_bound_holds_a_slow_answer() -> None:
    assert local_servers.PROBE_TIMEOUT >= 2 * SLOW


async def test_a_slow_server_is_found_and_silent_ports_are_left_out(
    slow_ollama: int, silent_ports: list[int]
) -> None:
    probes = (
        Probe("ollama", "Ollama", slow_ollama),
        *(Probe("vllm", "vLLM", p) for p in silent_ports),
    )
    found = await discover_servers(probes)
    assert [(s.kind, s.port, [m.id for m in s.models]) for s in found] == [
        ("ollama", slow_ollama, ["qwen2.5-coder:1.5b"])
    ]


async def test_the_probes_run_together(silent_ports: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each probe is its own task: while they wait on the silent ports, the loop serves others
    (the window's other calls) and every probe is in flight at once."""
    started: list[int] = []
    all_started = asyncio.Event()
    real = local_servers._probe

    async def counting(client: Any, probe: Probe, bound: float) -> Any:
        started.append(probe.port)
        if len(started) == len(silent_ports):
            all_started.set()
        return await real(client, probe, bound)

    monkeypatch.setattr(local_servers, "_probe", counting)
    task = asyncio.ensure_future(discover_servers(tuple(Probe("jan", "Jan", p) for p in silent_ports), 1.0))
    await all_started.wait()  # the loop keeps turning while the probes wait
    assert not task.done() and sorted(started) == sorted(silent_ports)  # all three in flight
    assert await task == []


async def test_the_looks_share_one_tls_context(silent_ports: list[int]) -> None:
    """Building a TLS context loads the CA bundle (~0.15 s of CPU): the UI looks at every page
    load, so the context is made once, not per look."""
    probes = (Probe("jan", "Jan", silent_ports[0]),)
    await discover_servers(probes, 0.2)
    first = local_servers._tls
    assert isinstance(first, ssl.SSLContext)
    await discover_servers(probes, 0.2)
    assert local_servers._tls is first
