"""Driving the window's page from tests and benchmarks: the client of desktop/automation.py.

The app evaluates JavaScript in its page for whoever connects to the Unix socket named by
`HARNESSDESK_AUTOMATION` (set only by tests and benchmarks): one JSON line per expression,
promises awaited. WebKitGTK has no DevTools port, so this replaces one.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

from desktop.automation import ENV


class DriverError(Exception):
    pass


class Page:
    """One connection to the window's page."""

    def __init__(self, path: Path, timeout: float = 30.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(str(path))
        except OSError:
            self.sock.close()
            raise
        self.stream = self.sock.makefile("rwb")

    def close(self) -> None:
        self.stream.close()
        self.sock.close()

    def evaluate(self, expression: str, timeout: float = 30.0) -> Any:
        """The value of a JS expression (promises awaited), or DriverError with the JS exception."""
        self.sock.settimeout(timeout + 5)
        self.stream.write(json.dumps({"expr": expression, "timeout": timeout}).encode() + b"\n")
        self.stream.flush()
        line = self.stream.readline()
        if not line:
            raise DriverError("the app closed the automation socket")
        reply = json.loads(line)
        if "error" in reply:
            raise DriverError(f"JS exception: {reply['error']}")
        return reply.get("value")


BRIDGE_READY = (
    "new Promise(r => { const t = () => window.pywebview?.api?.bridge_fetch ? r(true) : setTimeout(t, 20); "
    "t(); })"
)


def connect_ready(
    path: Path, ready: str = BRIDGE_READY, url_prefix: str = "harnessdesk://", timeout: float = 45.0
) -> Page:
    """Wait for the socket, the page at `url_prefix*`, then for `ready` to resolve; retried while
    the page is still loading (a navigation ends an evaluation with an error)."""
    deadline = time.monotonic() + timeout
    check = f"location.href.startsWith({json.dumps(url_prefix)})"
    last: Exception | None = None
    while time.monotonic() < deadline:
        page = None
        try:
            page = Page(path, timeout=5)
            if page.evaluate(check, timeout=5):
                page.evaluate(ready, timeout=max(1.0, deadline - time.monotonic()))
                if page.evaluate(check, timeout=5):
                    return page
        except (DriverError, OSError, ValueError) as exc:
            last = exc
        if page is not None:
            page.close()
        time.sleep(0.1)
    raise DriverError(f"no page {url_prefix}* ready on {path} ({last})")


def window_env(display: str, sock: Path) -> dict[str, str]:
    """The environment for a window process driven through `sock` on `display`."""
    return {"DISPLAY": display, ENV: str(sock), "PYTHONUNBUFFERED": "1"}


def plain_window(title: str, url: str) -> None:
    """A plain pywebview GTK window on `url` (no bridge), driven like the app's (benchmarks'
    baselines: the same engine reading the loopback site directly). Blocks until closed."""
    import webview

    from desktop import automation
    from desktop.app import prepare_gui_env

    prepare_gui_env()
    window = webview.create_window(title, url=url, width=900, height=600)
    assert window is not None
    sock = automation.requested()
    if sock is not None:
        window.events.before_show += lambda: automation.serve(window, sock)
    webview.start(gui="gtk")
