"""Fixtures: the fake api, its app, a real uvicorn on 127.0.0.1, and both Python clients."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import uvicorn
from starlette.types import ASGIApp

from host.fetch import AbstractApiClient, HttpApiClient, InProcessApiClient, to_fetch_handler
from tests.foundation.fake_api import FakeApi

HEARTBEAT = 0.1


@contextlib.contextmanager
def serve(app: ASGIApp) -> Iterator[str]:
    """Run `app` on a real uvicorn (port 0) in a thread; yield its base URL."""
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        lifespan="off",
        log_level="warning",
        http="h11",
        loop="asyncio",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def fake() -> FakeApi:
    return FakeApi()


@pytest.fixture
def app(fake: FakeApi) -> ASGIApp:
    return to_fetch_handler(fake, heartbeat_interval=HEARTBEAT)


ClientFactory = Callable[..., contextlib.AbstractAsyncContextManager[AbstractApiClient]]


@pytest.fixture(params=["inprocess", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def client_for(transport: str) -> ClientFactory:
    """`async with client_for(app, timeout=…) as client`: the same app over either transport."""

    @contextlib.asynccontextmanager
    async def factory(app: ASGIApp, **options: Any) -> AsyncIterator[AbstractApiClient]:
        if transport == "inprocess":
            yield InProcessApiClient(app, **options)
            return
        with serve(app) as base_url:
            async with HttpApiClient(base_url, **options) as client:
                yield client

    return factory


@pytest.fixture
async def client(client_for: ClientFactory, app: ASGIApp) -> AsyncIterator[AbstractApiClient]:
    async with client_for(app) as c:
        yield c
