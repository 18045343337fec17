"""Qt (QtWebEngine) specifics: serve webui/ from a custom scheme and inject the bridge first.

Why a custom scheme: Chromium refuses ES module scripts from file://, and pywebview's own
static server would open a loopback socket. `harnessdesk://app/` is registered before the
QApplication exists and answered by a QWebEngineUrlSchemeHandler reading files from webui/ —
no socket at all. The bridge JS goes in as a QWebEngineScript at DocumentCreation in the main
world, so `window.harnessdeskBridge` exists before the page's first script runs.

A request interceptor keeps the window on the app: a main-frame navigation anywhere else opens
in the system browser instead, and sub-resources from the network are refused (the same rule
as the loopback site's CSP). A navigation or download of `/api/session.export` (a plain link
the JS hook missed) is handed to `on_download` for the native save dialog.
"""

from __future__ import annotations

import contextlib
import logging
import mimetypes
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QUrl, pyqtSignal
from PyQt6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineScript,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineUrlRequestJob,
    QWebEngineUrlScheme,
    QWebEngineUrlSchemeHandler,
)
from PyQt6.QtWidgets import QFileDialog

from host.server.csp import CSP

log = logging.getLogger("desktop.qt")

SCHEME = b"harnessdesk"
ORIGIN = "harnessdesk://app"
START_URL = f"{ORIGIN}/index.html"
EXPORT_PATH = "/api/session.export"
_LOCAL_SCHEMES = {"harnessdesk", "data", "blob", "about", "qrc"}
_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".png": "image/png",
    ".ico": "image/x-icon",
}
# The loopback site's CSP, loosened only where pywebview needs it: it hands js_api results back
# through `eval` (so 'unsafe-eval') and injects an inline style. No inline script either way.
WINDOW_CSP = CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-eval'").replace(
    "style-src 'self'", "style-src 'self' 'unsafe-inline'"
)
_HEADERS = {
    b"Content-Security-Policy": WINDOW_CSP.encode(),
    b"X-Content-Type-Options": b"nosniff",
    b"Cache-Control": b"no-cache",
}


def register_scheme() -> None:
    """Declare `harnessdesk:`; must run before the QApplication is created."""
    scheme = QWebEngineUrlScheme(SCHEME)
    scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
    scheme.setFlags(
        QWebEngineUrlScheme.Flag.SecureScheme
        | QWebEngineUrlScheme.Flag.CorsEnabled
        | QWebEngineUrlScheme.Flag.FetchApiAllowed
    )
    QWebEngineUrlScheme.registerScheme(scheme)


def content_type(path: Path) -> str:
    ctype = _TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0]
    ctype = ctype or "application/octet-stream"
    return f"{ctype}; charset=utf-8" if ctype.startswith("text/") or ctype.endswith("json") else ctype


class StaticSchemeHandler(QWebEngineUrlSchemeHandler):
    """Answers `harnessdesk://app/<path>` from the webui folder (GET only, no traversal)."""

    def __init__(self, root: Path, on_download: Callable[[str], None], parent: Any = None) -> None:
        super().__init__(parent)
        self.root = root.resolve()
        self.on_download = on_download

    def requestStarted(self, job: QWebEngineUrlRequestJob | None) -> None:
        assert job is not None
        url = job.requestUrl()
        path = url.path() or "/"
        if path.startswith("/api/"):
            if path == EXPORT_PATH:
                query = url.query()
                target = path + (f"?{query}" if query else "")
                threading.Thread(target=self.on_download, args=(target,), daemon=True).start()
                job.fail(QWebEngineUrlRequestJob.Error.RequestAborted)
            else:
                job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)  # the API goes through the bridge
            return
        if url.host() != "app" or bytes(job.requestMethod().data()) not in (b"GET", b"HEAD"):
            job.fail(QWebEngineUrlRequestJob.Error.RequestDenied)
            return
        file = (self.root / path.lstrip("/")).resolve()
        if file.is_dir():
            file = file / "index.html"
        if not file.is_relative_to(self.root) or not file.is_file():
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        buffer = QBuffer(parent=job)
        buffer.setData(QByteArray(file.read_bytes()))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        job.setAdditionalResponseHeaders({QByteArray(k): [QByteArray(v)] for k, v in _HEADERS.items()})
        job.reply(QByteArray(content_type(file).encode()), buffer)


class NavigationFence(QWebEngineUrlRequestInterceptor):
    """Keeps the page on `harnessdesk://app`; chains to pywebview's own interceptor."""

    def __init__(self, inner: QWebEngineUrlRequestInterceptor | None, parent: Any = None) -> None:
        super().__init__(parent)
        self.inner = inner

    def interceptRequest(self, info: QWebEngineUrlRequestInfo | None) -> None:
        assert info is not None
        url: QUrl = info.requestUrl()
        scheme = url.scheme().lower()
        if scheme not in _LOCAL_SCHEMES and scheme not in ("devtools", "chrome"):
            info.block(True)
            main_frame = info.resourceType() == QWebEngineUrlRequestInfo.ResourceType.ResourceTypeMainFrame
            if main_frame and scheme in ("http", "https", "mailto"):
                webbrowser.open(url.toString(), new=2)
            return
        if self.inner is not None:
            self.inner.interceptRequest(info)


class DialogCloser(QObject):
    """Closes the window's open file dialogs, asked from any thread (create it on the GUI
    thread): a folder dialog whose caller went away must not stay on screen."""

    close_all = pyqtSignal()

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self.close_all.connect(self._close_all)

    def _close_all(self) -> None:
        for dialog in self._window.findChildren(QFileDialog):
            dialog.reject()


def script(source: str) -> QWebEngineScript:
    s = QWebEngineScript()
    s.setName("harnessdesk-bridge")
    s.setSourceCode(source)
    s.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    s.setWorldId(QWebEngineScript.ScriptWorldId.MainWorld)
    s.setRunsOnSubFrames(False)
    return s


def install(native: Any, webui: Path, bridge_source: str, on_download: Callable[[str], None]) -> None:
    """Wire one pywebview BrowserView (Qt); call from `before_show`, on the GUI thread.

    pywebview has built the page and asked it to load `START_URL`, but the navigation only runs
    once control returns to the event loop, so the handler and script are in place first.
    """
    profile = native.profile
    native._harnessdesk_handler = StaticSchemeHandler(webui, on_download, parent=native)
    profile.installUrlSchemeHandler(SCHEME, native._harnessdesk_handler)
    native._harnessdesk_fence = NavigationFence(getattr(native, "request_interceptor", None), parent=native)
    profile.setUrlRequestInterceptor(native._harnessdesk_fence)
    page = native.webview.page()
    page.scripts().insert(script(bridge_source))
    answer_permissions_ourselves(page)


def answer_permissions_ourselves(page: Any) -> None:
    """Deny every feature permission (notifications, camera, microphone …), with the real enum.

    pywebview 6.2.1's own slot passes a plain int to `setFeaturePermission`; PyQt6 raises a
    TypeError there and the whole app exits on the page's first permission request (the web
    UI asks for notification permission when the first turn starts). The app needs none of
    these features: pending approvals still show as a badge in the window title.
    """
    with contextlib.suppress(TypeError, AttributeError):
        page.featurePermissionRequested.disconnect(page.onFeaturePermissionRequested)
    denied = QWebEnginePage.PermissionPolicy.PermissionDeniedByUser

    def deny(url: Any, feature: Any) -> None:
        page.setFeaturePermission(url, feature, denied)

    page.featurePermissionRequested.connect(deny)
