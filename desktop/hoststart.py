"""The host is built on its loop while the page loads (docs/decisions.md, "Cold start";
docs/decisions/cold-start.md).

Importing and opening the host (pydantic models, the engine, SQLite) costs about a second of
CPU; GTK's start-up and the page load are mostly native work in WebKit's processes. Building
the host first made the window wait for both in turn; building it while GTK starts made the
window wait for the GIL. The window builds it once it is on screen. `StartingHost` is the
bridge's ASGI app meanwhile: a request waits (bounded) for the real app, so the page's first
calls are answered as soon as the host exists, and the page shows its usual "connecting" state
until then.

A host that cannot be built (an unknown `--provider`, an unwritable data folder, a store that
will not open) is final for this process: every request is then answered at once with
`HOST_FAILED_STATUS` and the `HOST_FAILED_HEADER` marker, the reason as the body, so the page
shows one message instead of retrying (docs/decisions.md, "Cold start").
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import threading
from concurrent.futures import Future

from starlette.types import ASGIApp, Receive, Scope, Send

from desktop.hostloop import Host, HostFactory, HostLoop

START_TIMEOUT = 120.0
"""How long a request (or the shutdown) waits for the host to exist; a first start on a slow,
busy machine with a large store to repair takes seconds, not minutes."""

HOST_FAILED_STATUS = 503
HOST_FAILED_HEADER = ("x-harnessdesk-host", "failed")
"""Marks the answer as "the host could not start" (final), unlike any other 503 or a 500."""


def failure_text(exc: BaseException) -> str:
    """One line saying why the host could not be built."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


class StartingHost:
    """The host being built on `loop`; an ASGI app that forwards to it once built.

    `deferred`: the build starts at `start()` (the window calls it once it is on screen) or at
    the first thing that needs the host (a request, `wait()`), whichever comes first. Building
    while GTK starts slowed the window's first paint, since both need the GIL; WebKit's page
    process takes longer to start than the host does, so the page waits no longer for it
    (docs/decisions/cold-start.md)."""

    def __init__(
        self,
        loop: HostLoop,
        factory: HostFactory,
        args: argparse.Namespace,
        timeout: float = START_TIMEOUT,
        *,
        deferred: bool = False,
    ) -> None:
        self.timeout = timeout
        self._loop, self._factory, self._args = loop, factory, args
        self._starting = threading.Lock()
        self._built: Future[Host] | None = None
        self._closing = False
        if not deferred:
            self.start()

    def start(self) -> Future[Host]:
        """Start the build, once (from any thread); the build's future."""
        with self._starting:
            if self._built is None:
                if self._closing:
                    raise RuntimeError("the window is closing: its host was never started")
                build = self._build(self._factory, self._args)
                self._built = asyncio.run_coroutine_threadsafe(build, self._loop.loop)
            return self._built

    @staticmethod
    async def _build(factory: HostFactory, args: argparse.Namespace) -> Host:
        host = factory(args)
        return await host if inspect.isawaitable(host) else host

    async def _host(self) -> Host:
        # shielded: a request that gives up must not cancel the build itself
        return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self.start())), self.timeout)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            app, _ = await self._host()
        except Exception:
            failure = self.failure()
            if failure is None or scope["type"] != "http":
                raise  # still building after `timeout`: a plain error, the page retries
            await answer_failed(send, failure)
            return
        await app(scope, receive, send)

    def wait(self) -> ASGIApp:
        """Block until the host exists (its ASGI app), or raise why it could not be built."""
        return self.start().result(self.timeout)[0]

    def failure(self) -> BaseException | None:
        """Why the build failed, once it has; None while it runs or when it succeeded."""
        built = self._built
        if built is None or not built.done() or built.cancelled():
            return None
        return built.exception()

    async def shutdown(self) -> None:
        """The host's own shutdown hook, after its build finished (nothing if it failed or never
        started)."""
        with self._starting:
            self._closing = True
            if self._built is None:
                return
        try:
            _, shutdown = await self._host()
        except Exception:
            return
        result = shutdown()
        if inspect.isawaitable(result):
            await result


async def answer_failed(send: Send, failure: BaseException) -> None:
    body = failure_text(failure).encode("utf-8")
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"cache-control", b"no-store"),
        (HOST_FAILED_HEADER[0].encode(), HOST_FAILED_HEADER[1].encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": HOST_FAILED_STATUS, "headers": headers})
    await send({"type": "http.response.body", "body": body})
