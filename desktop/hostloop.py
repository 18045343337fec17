"""The host's asyncio loop on a daemon thread, beside the GUI toolkit that owns the main thread.

`call()` runs a coroutine there from any thread; desktop/hoststart.py builds the host on it, and
`stop()` awaits the host's shutdown hook before the loop ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from starlette.types import ASGIApp

log = logging.getLogger("desktop.hostloop")
T = TypeVar("T")

Shutdown = Callable[[], Awaitable[None] | None]
Host = tuple[ASGIApp, Shutdown]
HostFactory = Callable[[argparse.Namespace], Host | Awaitable[Host]]


class HostLoop:
    """The host's asyncio loop on a daemon thread; `call()` runs coroutines there."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="harnessdesk-host", daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def start(self) -> None:
        self._thread.start()

    def call(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self, shutdown: Shutdown, timeout: float = 15.0) -> None:
        """Await the host's shutdown hook, cancel what is left, stop the loop."""

        async def finish() -> None:
            try:
                result = shutdown()
                if inspect.isawaitable(result):
                    await asyncio.wait_for(result, timeout)
            except Exception:
                log.exception("host shutdown failed")
            current = asyncio.current_task()
            rest = [t for t in asyncio.all_tasks() if t is not current]
            for task in rest:
                task.cancel()
            await asyncio.gather(*rest, return_exceptions=True)

        with contextlib.suppress(Exception):
            self.call(finish(), timeout + 5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
