"""Fixtures: one scripted LLM for the suite, and a real host reached over either carrier.

`host` is parametrized over the two carriers (docs/architecture.md, "Clients"):
- `inprocess`: `InProcessApiClient` driving the fetch app of `open_host(...)` directly;
- `http`: `HttpApiClient` against a real uvicorn (`LoopbackServer`) on 127.0.0.1 serving
  `build_site(...)` (fence, token, webui) with a per-test token.

A host is cheap (about 50 ms), so each test gets a fresh one on its own data dir: tests can
then reason about "every session" and "every frame" without leftovers from other tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from starlette.types import ASGIApp

from contract.methods import SESSION_CREATE
from desktop.paths import webui_dir
from host.api import HostApiProxy, HostRuntime, open_host
from host.engine.engine import Engine
from host.engine.llm.overrides import RuntimeOverrides
from host.fetch import AbstractApiClient, HttpApiClient, InProcessApiClient, to_fetch_handler
from host.server import build_site
from host.server.binding import bind_socket
from host.server.run import LoopbackServer
from tests.api.support import Frames
from tests.support.scripted_llm import ScriptedLlmServer

CARRIERS = ["inprocess", "http"]
MODEL = "scripted-small"


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The env fallback key must not leak into tests about missing keys."""
    monkeypatch.delenv("HARNESSDESK_API_KEY", raising=False)


@dataclass
class Host:
    """A running host and the clients a test opened on it (closed at teardown)."""

    carrier: str
    runtime: HostRuntime
    data_dir: Path
    workdir: Path
    """A directory to use as a session cwd."""
    base_url: str | None = None
    token: str | None = None
    apps: dict[str, ASGIApp] = field(default_factory=dict)
    """Extra fetch apps (e.g. a tiny-queue proxy) by name; `"default"` is the runtime's."""
    urls: dict[str, str] = field(default_factory=dict)
    """For `http`: the base URL serving each app."""
    _clients: list[AbstractApiClient] = field(default_factory=list)
    _frames: list[Frames] = field(default_factory=list)
    _servers: list[tuple[LoopbackServer, asyncio.Task[None]]] = field(default_factory=list)

    @property
    def engine(self) -> Engine:
        return self.runtime.engine

    def client(self, app: str = "default", **options: Any) -> AbstractApiClient:
        """A new client of this host's carrier (for `app`, see `add_app`)."""
        c: AbstractApiClient
        if self.carrier == "inprocess":
            c = InProcessApiClient(self.apps[app], **options)
        else:
            c = HttpApiClient(self.urls[app], self.token, **options)
        self._clients.append(c)
        return c

    async def add_app(self, name: str, app: ASGIApp) -> None:
        """Serve another fetch app over the same engine (its own uvicorn for `http`)."""
        self.apps[name] = app
        if self.carrier == "http":
            self.urls[name] = await self._serve(app)

    async def _serve(self, api_app: ASGIApp) -> str:
        assert self.token is not None
        site = build_site(api_app, webui_dir(), token=self.token, peers=self.runtime.peers)
        server = LoopbackServer(site, bind_socket("127.0.0.1", 0))
        ready = asyncio.Event()
        task = asyncio.create_task(server.serve(on_ready=ready.set))
        waiter = asyncio.ensure_future(ready.wait())
        await asyncio.wait([waiter, task], timeout=10, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if not ready.is_set():
            raise RuntimeError("uvicorn did not start")
        self._servers.append((server, task))
        return f"http://127.0.0.1:{server.port}"

    async def mux(self, client: AbstractApiClient | None = None) -> Frames:
        return await self._open(client, "events.mux")

    async def host_stream(self, client: AbstractApiClient | None = None) -> Frames:
        return await self._open(client, "events.host")

    async def _open(self, client: AbstractApiClient | None, key: str) -> Frames:
        frames = Frames((client or self.client()).stream(key))
        await frames.__aenter__()
        self._frames.append(frames)
        return frames

    async def create(self, cwd: Path | None = None, **extra: Any) -> str:
        payload = {"cwd": str(cwd or self.workdir), **extra}
        response = await self.client().call(SESSION_CREATE, payload)
        assert response.result.ok, response.result
        return str(response.result.value.session_id)

    async def close(self) -> None:
        for frames in self._frames:
            await frames.close()
        for c in self._clients:
            await c.aclose()
        for server, _ in self._servers:
            server.stop()
        for _, task in self._servers:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
        await self.runtime.close()


async def open_test_host(
    carrier: str, root: Path, base_url: str, *, data_dir: Path | None = None, heartbeat: float = 1.0
) -> Host:
    data = data_dir or root / "data"
    work = root / "work"
    work.mkdir(parents=True, exist_ok=True)
    overrides = RuntimeOverrides(provider="openai-compatible", base_url=base_url, model=MODEL)
    runtime = await open_host(data, overrides, heartbeat=heartbeat)
    host = Host(carrier, runtime, data, work, token=secrets.token_urlsafe(32))
    host.apps["default"] = runtime.app
    if carrier == "http":
        host.urls["default"] = host.base_url = await host._serve(runtime.app)
    return host


def tiny_queue_app(host: Host, limit: int) -> ASGIApp:
    """A second ApiProxy over the same engine whose subscribers hold at most `limit` frames."""
    return to_fetch_handler(HostApiProxy(host.engine, queue_limit=limit), heartbeat_interval=1.0)


@pytest.fixture(params=CARRIERS)
def carrier(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def host(carrier: str, tmp_path: Path, llm: ScriptedLlmServer) -> AsyncIterator[Host]:
    h = await open_test_host(carrier, tmp_path, llm.base_url)
    try:
        yield h
    finally:
        await h.close()


@pytest.fixture
async def client(host: Host) -> AbstractApiClient:
    return host.client()
