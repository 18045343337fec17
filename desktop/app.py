"""`harnessdesk` with no subcommand: one pywebview window over the in-process host (spec 05).

Threads: Qt owns the main thread (`webview.start()`); the host runs on an asyncio loop in a
background thread started with the window; pywebview runs each js_api call on a thread of its
own; the bridge's pusher has one more. Closing the window disconnects every bridge exchange,
stops the optional loopback server, then awaits the host's shutdown hook (the real engine ends
running turns `aborted {by: "disposed"}` and flushes) before the process exits.

The host comes from ONE function, `build_host(args) -> (api_app, shutdown)`, the seam where the
real builder (`host.api.open_host`) plugs in; tests pass their own factory to `run_window`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import json
import logging
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from starlette.types import ASGIApp

from desktop import paths
from desktop.instance import ActivationError, acquire, activate_running

log = logging.getLogger("desktop.app")
T = TypeVar("T")

Shutdown = Callable[[], Awaitable[None] | None]
Host = tuple[ASGIApp, Shutdown]
HostFactory = Callable[[argparse.Namespace], Host | Awaitable[Host]]

TITLE = "HarnessDesk"
MIN_SIZE = (720, 480)
DEFAULT_SIZE = (1100, 740)
NO_DISPLAY = (
    "harnessdesk: no display found (DISPLAY / WAYLAND_DISPLAY unset); run `harnessdesk serve` instead"
)


class WindowError(Exception):
    """A user-facing reason the window cannot open: one line, exit code 2."""


# ---- the host seam ---------------------------------------------------------------------------


async def build_host(args: argparse.Namespace) -> tuple[ASGIApp, Shutdown]:
    """THE seam: the API's ASGI app (`to_fetch_handler(api)`) and the host's shutdown hook.

    Awaited on the host loop's thread. The real host: `host.api.open_host` (engine + ApiProxy +
    fetch app); its `close()` ends running turns `aborted {by: "disposed"}` and flushes.
    """
    from host.api import open_host
    from host.engine.config import RuntimeOverrides

    overrides = RuntimeOverrides(provider=args.provider, base_url=args.base_url, model=args.model)
    runtime = await open_host(Path(args.data_dir), overrides)
    return runtime.app, runtime.close


class HostRuntime:
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

    def build(self, factory: HostFactory, args: argparse.Namespace) -> Host:
        async def on_loop() -> Host:
            host = factory(args)
            return await host if inspect.isawaitable(host) else host

        return self.call(on_loop())

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


# ---- window state ----------------------------------------------------------------------------


class Geometry:
    """Size and position, remembered in `<data dir>/window.json`."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.width, self.height = DEFAULT_SIZE
        self.x: int | None = None
        self.y: int | None = None
        with contextlib.suppress(OSError, ValueError, TypeError):
            saved = json.loads(file.read_text())
            self.width = max(MIN_SIZE[0], min(int(saved["width"]), 10000))
            self.height = max(MIN_SIZE[1], min(int(saved["height"]), 10000))
            x, y = saved.get("x"), saved.get("y")
            if isinstance(x, int) and isinstance(y, int) and -50 <= x < 10000 and -50 <= y < 10000:
                self.x, self.y = x, y

    def resized(self, width: int, height: int) -> None:
        self.width, self.height = int(width), int(height)

    def moved(self, x: int, y: int) -> None:
        self.x, self.y = int(x), int(y)

    def save(self) -> None:
        data = {"width": self.width, "height": self.height, "x": self.x, "y": self.y}
        tmp = self.file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(self.file)


# ---- environment -----------------------------------------------------------------------------


def has_display() -> bool:
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def prepare_qt_env() -> None:
    """Qt by default on Linux; QtWebEngine needs --no-sandbox when run as root."""
    if sys.platform.startswith("linux"):
        os.environ.setdefault("PYWEBVIEW_GUI", "qt")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--no-sandbox" not in flags.split():
            os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{flags} --no-sandbox".strip()


# ---- the window ------------------------------------------------------------------------------


def run_window(
    args: argparse.Namespace,
    host_factory: HostFactory = build_host,
    webui: Path | None = None,
) -> int:
    """Open the window (or focus the running one) and block until it is closed."""
    if not has_display():
        print(NO_DISPLAY, file=sys.stderr)
        return 2
    data_dir = paths.resolve_data_dir(args.data_dir)
    args.data_dir = str(data_dir)  # every factory sees the resolved dir
    primary = acquire(data_dir)
    if primary is None:
        try:
            pid = activate_running(data_dir)
        except ActivationError as exc:
            raise WindowError(str(exc)) from exc
        print(f"HarnessDesk is already running on this data dir (pid {pid}); focused its window.")
        return 0
    prepare_qt_env()
    webui = webui or paths.webui_dir()
    if not (webui / "index.html").is_file():
        raise WindowError(f"the web UI is missing: no {webui / 'index.html'}")
    from desktop.shell import Shell  # imports pywebview and the GUI toolkit: only now

    runtime = HostRuntime()
    runtime.start()
    shutdown: Shutdown = lambda: None  # noqa: E731
    shell: Shell | None = None
    try:
        api_app, shutdown = runtime.build(host_factory, args)
        shell = Shell(api_app, runtime, webui, Geometry(data_dir / "window.json"), data_dir)
        if args.serve:
            shell.start_loopback(args.port)
        primary.listen(shell.activate)
        shell.run()
    finally:
        if shell is not None:
            shell.stop_loopback()
        runtime.stop(shutdown)
        primary.close()
    return 0
