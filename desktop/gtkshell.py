"""WebKitGTK specifics (the Linux window): serve webui/ from `harnessdesk://`, inject the bridge first.

The scheme (desktop/appscheme.py) is registered on the window's WebKit context before its first
load and answered from the webui folder — no socket at all. The bridge JS goes in as a
WebKit user script at document start in the main world, so `window.harnessdeskBridge` exists
before the page's first script runs.

A navigation policy keeps the window on the app: a link to anywhere else opens in the system
browser instead, and any other navigation away is refused; sub-resources from the network are
refused by the page's CSP (sent with every answer, as on the loopback site). A navigation to
`/api/session.export` (a plain link the JS hook missed) is handed to `on_download` for the
native save dialog. Every permission request (notifications, camera, microphone …) is denied.

pywebview imports GTK and WebKit itself; this module is imported only once it has chosen GTK.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
gi.require_version("Soup", "3.0")
from gi.repository import Gio, GLib, Gtk, Soup  # noqa: E402

WebKit2: Any = importlib.import_module("gi.repository.WebKit2")  # PyGObject-stubs have none

from desktop import appscheme  # noqa: E402
from host.server.preload import PreloadedPage  # noqa: E402

log = logging.getLogger("desktop.gtk")

_DENIED = {405: "Method Not Allowed", 404: "Not Found", 403: "Forbidden"}


def browser_view(window: Any) -> Any:
    """pywebview's GTK BrowserView of a window (`window.native` is only the Gtk window)."""
    from webview.platforms.gtk import BrowserView

    return BrowserView.instances[window.uid]


class SchemeHandler:
    """Answers `harnessdesk://app/<path>` from the webui folder (GET only, no traversal)."""

    def __init__(self, root: Path, on_download: Callable[[str], None]) -> None:
        self.root = root.resolve()
        self.on_download = on_download
        self.page = PreloadedPage(self.root)
        """index.html with its module preload list, as the loopback site serves it."""

    def __call__(self, request: Any) -> None:
        try:
            self._answer(request)
        except Exception as exc:  # never leave the page's request hanging
            log.exception("harnessdesk:// request failed")
            error = GLib.Error.new_literal(Gio.io_error_quark(), str(exc), Gio.IOErrorEnum.FAILED)
            request.finish_error(error)

    def _answer(self, request: Any) -> None:
        uri = GLib.Uri.parse(request.get_uri(), GLib.UriFlags.NONE)
        path = uri.get_path() or "/"
        if path.startswith("/api/"):
            if path == appscheme.EXPORT_PATH:
                query = uri.get_query()
                start_download(self.on_download, path + (f"?{query}" if query else ""))
            self._status(request, 404)  # the API goes through the bridge
            return
        if uri.get_host() != "app" or request.get_http_method() not in ("GET", "HEAD"):
            self._status(request, 403)
            return
        file = appscheme.resolve(self.root, path)
        if file is None:
            self._status(request, 404)
            return
        data = self.page.body() if file == self.root / "index.html" else file.read_bytes()
        self._reply(request, 200, appscheme.content_type(file), data)

    def _status(self, request: Any, status: int) -> None:
        self._reply(request, status, "text/plain; charset=utf-8", _DENIED[status].encode())

    @staticmethod
    def _reply(request: Any, status: int, ctype: str, data: bytes) -> None:
        stream = Gio.MemoryInputStream.new_from_bytes(GLib.Bytes.new(data))
        response = WebKit2.URISchemeResponse.new(stream, len(data))
        response.set_status(status, _DENIED.get(status))
        response.set_content_type(ctype.split(";", 1)[0])
        headers = Soup.MessageHeaders.new(Soup.MessageHeadersType.RESPONSE)
        # the headers replace the response's own: the type must be among them (nosniff)
        for name, value in {"Content-Type": ctype, **appscheme.HEADERS}.items():
            headers.append(name, value)
        response.set_http_headers(headers)
        request.finish_with_response(response)


def start_download(on_download: Callable[[str], None], target: str) -> None:
    """The save dialog and the copy run off the GTK thread (the dialog is shown through it)."""
    threading.Thread(target=on_download, args=(target,), daemon=True, name="export-download").start()


class NavigationFence:
    """Keeps the page on `harnessdesk://app`; replaces pywebview's own policy handler."""

    def __init__(self, on_download: Callable[[str], None]) -> None:
        self.on_download = on_download

    def __call__(self, webview: Any, decision: Any, kind: Any) -> bool:
        types = WebKit2.PolicyDecisionType
        if kind == types.RESPONSE:
            if decision.is_mime_type_supported():
                decision.use()
            else:
                decision.ignore()  # no downloads behind the user's back: exports use the dialog
            return True
        action = decision.get_navigation_action()
        url = action.get_request().get_uri()
        scheme = (GLib.Uri.peek_scheme(url) or "").lower()
        if scheme == appscheme.SCHEME:
            path = GLib.Uri.parse(url, GLib.UriFlags.NONE).get_path() or "/"
            if path == appscheme.EXPORT_PATH:
                decision.ignore()
                start_download(self.on_download, path + url.partition(path)[2].split("#", 1)[0])
            elif kind == types.NEW_WINDOW_ACTION:
                decision.ignore()  # one window: the app never opens a second one
            else:
                decision.use()
            return True
        if scheme in appscheme.LOCAL_SCHEMES and kind == types.NAVIGATION_ACTION:
            decision.use()
            return True
        decision.ignore()
        clicked = action.get_navigation_type() == WebKit2.NavigationType.LINK_CLICKED
        if scheme in ("http", "https", "mailto") and (clicked or kind == types.NEW_WINDOW_ACTION):
            webbrowser.open(url, new=2)
        return True


def deny_permission(_webview: Any, request: Any) -> bool:
    """Notifications, camera, microphone, location …: the app needs none of them."""
    request.deny()
    return True


def install(window: Any, webui: Path, bridge_source: str, on_download: Callable[[str], None]) -> None:
    """Wire one pywebview GTK window; call from `before_show`, on the GTK thread.

    pywebview has built the WebView but not yet asked it to load `START_URL`, so the scheme,
    the script and the policy are in place before the first request.
    """
    view = browser_view(window)
    webview = view.webview
    context = webview.get_context()
    handler = SchemeHandler(webui, on_download)
    view._harnessdesk_handler = handler  # kept alive with the view
    context.register_uri_scheme(appscheme.SCHEME, handler)
    security = context.get_security_manager()
    security.register_uri_scheme_as_secure(appscheme.SCHEME)
    security.register_uri_scheme_as_cors_enabled(appscheme.SCHEME)
    script = WebKit2.UserScript.new(
        bridge_source,
        WebKit2.UserContentInjectedFrames.TOP_FRAME,
        WebKit2.UserScriptInjectionTime.START,
        None,
        None,
    )
    view.manager.add_script(script)
    webview.disconnect_by_func(view.on_navigation)
    webview.connect("decide-policy", NavigationFence(on_download))
    webview.connect("permission-request", deny_permission)


def start_js(window: Any, script: str, done: Callable[[], None]) -> None:
    """Run `script` in the page without waiting for it (the bridge's pushes,
    docs/decisions/bridge-pushes-pipelined.md); `done` is called once the page ran it, or failed to.

    pywebview's `run_js` waits for each script's answer and queues it at idle priority, behind
    every redraw of the window; this one is queued just above redraws and returns at once. GLib
    runs sources of one priority in the order they were added, and WebKit runs scripts in the
    order they were sent, so the page sees the pushes in the order they were started.
    """

    def finished(webview: Any, result: Any) -> None:
        try:
            webview.evaluate_javascript_finish(result)
        except GLib.Error as exc:
            log.warning("a bridge push failed in the page: %s", exc.message)
        finally:
            done()

    def run() -> bool:
        try:
            browser_view(window).webview.evaluate_javascript(
                script=script,
                length=-1,
                world_name=None,
                source_uri=None,
                cancellable=None,
                callback=finished,
            )
        except Exception:
            log.exception("a bridge push could not start")
            done()
        return False

    GLib.idle_add(run, priority=GLib.PRIORITY_HIGH_IDLE)  # type: ignore[call-arg]  # PyGObject takes it


def close_file_dialogs() -> None:
    """Close every open file dialog (from any thread): a folder dialog whose caller went away
    must not stay on screen."""

    def close() -> bool:
        for toplevel in Gtk.Window.list_toplevels():
            if isinstance(toplevel, Gtk.FileChooserDialog):
                toplevel.response(Gtk.ResponseType.CANCEL)
        return False

    GLib.idle_add(close)


def settle_after_close(timeout: float = 2.0) -> None:
    """Let js_api calls that ended as the window closed finish (bounded; on the main thread).

    pywebview hands each js_api result back to the page from a non-daemon thread, through the
    GTK loop. A call the closing window cancelled queues that hand-back just before the loop
    stops, and its thread would then wait forever (and Python for it at exit). Running the
    loop's pending work lets the hand-back fail fast against the destroyed page.
    """
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        while context.iteration(False):
            pass
        main = threading.main_thread()
        if not any(t.is_alive() and not t.daemon and t is not main for t in threading.enumerate()):
            return
        time.sleep(0.02)


WEB_MEMORY_LIMIT_MB = 300
"""The window's web process is asked to stay under this (docs/decisions/window-memory-policy.md):
above a third of it WebKit releases non-critical memory (caches), above half of it critical
memory too (a full collection, compiled code, freed heap pages given back). WebKit's default
limit is 3 GB, so the window released nothing before it held a gigabyte."""
WEB_MEMORY_POLL_S = 5.0
"""How often the web process compares its memory with the limit (WebKit's default: 30 s)."""


def web_memory_policy() -> Any:
    """The memory-pressure settings of the window's web process."""
    settings = WebKit2.MemoryPressureSettings.new()
    settings.set_memory_limit(WEB_MEMORY_LIMIT_MB)
    settings.set_conservative_threshold(0.33)
    settings.set_strict_threshold(0.5)
    settings.set_poll_interval(WEB_MEMORY_POLL_S)
    return settings


def limit_web_memory(policy: Callable[[], Any] = web_memory_policy) -> None:
    """Give the window's web processes `policy()`; call before pywebview builds the window
    (`webview.start`).

    The settings are a construct-only property of the WebKit context, and pywebview builds the
    context itself (`WebContext.new_with_website_data_manager`, its storage folder): that one
    constructor is routed through a builder that passes the settings as well.
    """

    def build(manager: Any) -> Any:
        return WebKit2.WebContext(website_data_manager=manager, memory_pressure_settings=policy())

    WebKit2.WebContext.new_with_website_data_manager = staticmethod(build)
