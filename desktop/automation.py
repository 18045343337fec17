"""Page automation for tests and benchmarks: `HARNESSDESK_AUTOMATION=/path/to/socket`.

WebKitGTK has no DevTools port to attach to, so when (and only when) that variable is set the
window listens on a Unix socket at that path (created 0600; an existing path is refused) and
evaluates JavaScript in the page's main world for whoever connects: one JSON line in
(`{"expr": "..."}`), one JSON line out (`{"value": ...}` or `{"error": "..."}`), promises
awaited. Whoever can set the app's environment can already run code as its user, so this opens
nothing new; nothing listens without the variable. See docs/decisions.md ("Performance and
packaging") and tests/desktop/driver.py for the client.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import os
import socket
import threading
from pathlib import Path
from typing import Any

ENV = "HARNESSDESK_AUTOMATION"
EVAL_TIMEOUT = 120.0
_BODY = "return await (0, eval)(expr);"
_CSP_REFUSED = "EvalError"
"""A page whose CSP forbids eval (the loopback site in a plain window) gets the expression
compiled as the function's own body instead; statements then need a comma or an IIFE."""

log = logging.getLogger("desktop.automation")


def requested() -> Path | None:
    path = os.environ.get(ENV)
    return Path(path) if path else None


def evaluate(window: Any, expr: str, timeout: float = EVAL_TIMEOUT) -> dict[str, Any]:
    """Evaluate `expr` in the page of a pywebview GTK window (from any thread but GTK's)."""
    outcome = _call(window, _BODY, expr, timeout)
    if outcome.get("error", "").startswith(_CSP_REFUSED):
        outcome = _call(window, f"return await ({expr}\n);", expr, timeout)
    return outcome


def _call(window: Any, body: str, expr: str, timeout: float) -> dict[str, Any]:
    import gi

    gi.require_version("WebKit2", "4.1")
    from gi.repository import GLib

    importlib.import_module("gi.repository.WebKit2")  # the namespace call_async_javascript_function needs

    from desktop.gtkshell import browser_view

    done = threading.Event()
    outcome: dict[str, Any] = {}

    def finished(webview: Any, task: Any) -> None:
        try:
            value = webview.call_async_javascript_function_finish(task)
            text = value.to_json(0) if value is not None else None
            outcome["value"] = None if text in (None, "undefined") else json.loads(text)
        except GLib.Error as exc:
            outcome["error"] = exc.message
        except Exception as exc:
            outcome["error"] = repr(exc)
        done.set()

    def start() -> bool:
        try:
            webview = browser_view(window).webview
            args = GLib.Variant("a{sv}", {"expr": GLib.Variant("s", expr)})
            webview.call_async_javascript_function(body, -1, args, None, None, None, finished)
        except Exception as exc:
            outcome["error"] = repr(exc)
            done.set()
        return False

    GLib.idle_add(start)
    if not done.wait(timeout):
        return {"error": f"no answer within {timeout} s"}
    return outcome


def serve(window: Any, path: Path) -> None:
    """Listen on `path` on a daemon thread; one thread per connection."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))  # fails when the path exists: never take over someone's file
    finally:
        os.umask(old)
    sock.listen(8)

    def accept() -> None:
        while True:
            conn, _ = sock.accept()
            threading.Thread(target=_connection, args=(window, conn), daemon=True).start()

    threading.Thread(target=accept, daemon=True, name="automation").start()


def _connection(window: Any, conn: socket.socket) -> None:
    with contextlib.closing(conn), conn.makefile("rwb") as stream:
        for line in stream:
            try:
                request = json.loads(line)
                reply = evaluate(window, str(request["expr"]), float(request.get("timeout", EVAL_TIMEOUT)))
            except (ValueError, KeyError, TypeError) as exc:
                reply = {"error": f"bad request: {exc}"}
            try:
                stream.write(json.dumps(reply).encode() + b"\n")
                stream.flush()
            except OSError:
                return
