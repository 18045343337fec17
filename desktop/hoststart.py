"""The host is built on its loop while the window opens (docs/decisions.md, "cold start").

Importing and opening the host (pydantic models, the engine, SQLite) costs about a second of
CPU; Qt's start-up and the page load are mostly native work in QtWebEngine's processes. Building
the host first made the window wait for both in turn. `StartingHost` is the bridge's ASGI app
meanwhile: a request waits (bounded) for the real app, so the page's first calls are answered
as soon as the host exists, and the page shows its usual "connecting" state until then.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
from collections.abc import Callable
from concurrent.futures import Future

from starlette.types import ASGIApp, Receive, Scope, Send

from desktop.hostloop import Host, HostFactory, HostLoop

START_TIMEOUT = 120.0
"""How long a request (or the shutdown) waits for the host to exist; a first start on a slow,
busy machine with a large store to repair takes seconds, not minutes."""


class StartingHost:
    """The host being built on `loop`; an ASGI app that forwards to it once built."""

    def __init__(
        self, loop: HostLoop, factory: HostFactory, args: argparse.Namespace, timeout: float = START_TIMEOUT
    ) -> None:
        self.timeout = timeout
        self._built: Future[Host] = asyncio.run_coroutine_threadsafe(self._build(factory, args), loop.loop)

    @staticmethod
    async def _build(factory: HostFactory, args: argparse.Namespace) -> Host:
        host = factory(args)
        return await host if inspect.isawaitable(host) else host

    async def _host(self) -> Host:
        # shielded: a request that gives up must not cancel the build itself
        return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self._built)), self.timeout)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app, _ = await self._host()
        await app(scope, receive, send)

    def wait(self) -> ASGIApp:
        """Block until the host exists (its ASGI app), or raise why it could not be built."""
        return self._built.result(self.timeout)[0]

    def on_failure(self, callback: Callable[[BaseException], object]) -> None:
        """`callback(exception)` if the build fails (from the host loop's thread)."""

        def done(future: Future[Host]) -> None:
            if not future.cancelled() and future.exception() is not None:
                callback(future.exception())  # type: ignore[arg-type]

        self._built.add_done_callback(done)

    def failure(self) -> BaseException | None:
        """Why the build failed, once it has; None while it runs or when it succeeded."""
        if not self._built.done() or self._built.cancelled():
            return None
        return self._built.exception()

    async def shutdown(self) -> None:
        """The host's own shutdown hook, after its build finished (nothing if it failed)."""
        try:
            _, shutdown = await self._host()
        except Exception:
            return
        result = shutdown()
        if inspect.isawaitable(result):
            await result
