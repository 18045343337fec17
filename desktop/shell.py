"""The pywebview window around the bridge; imported only once a display is known to exist.

On Linux, WebKitGTK (the tested path) loads `harnessdesk://app/index.html` through
desktop/gtkshell.py: no socket. WebView2 (Windows) and WKWebView (macOS) use pywebview's
built-in static server, which binds a loopback port for the UI files only; the bridge JS is
then evaluated after load and announces itself with `harnessdeskbridgeready`. Either way the
API goes only through the bridge.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

import webview
from starlette.types import ASGIApp
from webview.guilib import GUIType

from desktop import appscheme, automation, paths
from desktop.bridge import Bridge, BridgeApi, Pusher
from desktop.folders import DIALOG_LOCK, WindowFolderPicker, open_folder
from desktop.geometry import MIN_SIZE, TITLE, Geometry
from desktop.hostloop import HostLoop
from desktop.i18n import t
from desktop.notify import DesktopNotifications
from desktop.rendering import has_render_node

if TYPE_CHECKING:
    from host.server.peers import SandboxPeers
    from host.server.run import LoopbackServer

log = logging.getLogger("desktop.shell")


def page_prelude() -> str:
    """JS run before the bridge script: the system's language, which the page speaks unless
    Settings says otherwise (docs/decisions.md, "Languages": WebKitGTK's navigator.languages need
    not follow the locale); whether the page is painted in software, where it draws no blurred
    shadow (desktop/rendering.py); and with `$HARNESSDESK_DEV_VALIDATE` at `1` (the test suite
    sets it for every process it starts) the web client checks every value it receives against
    the contract (docs/architecture.md, "Clients")."""
    from desktop.i18n import system_language

    prelude = f"globalThis.HARNESSDESK_SYSTEM_LANGUAGES = {json.dumps([system_language()])};\n"
    if not has_render_node():
        prelude += 'globalThis.HARNESSDESK_PAINT = "software";\n'
    if os.environ.get("HARNESSDESK_DEV_VALIDATE") == "1":
        prelude += "globalThis.HARNESSDESK_DEV_VALIDATE = true;\n"
    return prelude


def chosen_gui() -> GUIType | None:
    """The pywebview GUI to request: `PYWEBVIEW_GUI` if set (gtk on Linux), else the default.
    pywebview itself refuses a name it does not know."""
    return cast("GUIType | None", os.environ.get("PYWEBVIEW_GUI") or None)


SETTLE_AFTER = 1.0
"""Seconds after the page has loaded before the heap is settled (`_settle`): the first page's
requests are answered by then."""


_SETTLING: set[asyncio.Task[None]] = set()
"""The settling task while it runs (the loop keeps only a weak reference to a task)."""


def _settle() -> None:
    """On the host's loop: the window's process holds the GUI toolkit's objects as well as the
    host's (docs/decisions/settled-heap.md)."""
    from host.heap import settle_when_warm

    task = asyncio.get_running_loop().create_task(settle_when_warm(), name="settle-heap")
    _SETTLING.add(task)
    task.add_done_callback(_SETTLING.discard)


class Shell:
    """One main window: geometry, bridge, activation, optional loopback server."""

    def __init__(
        self,
        api_app: ASGIApp,
        host_loop: HostLoop,
        webui: Path,
        geometry: Geometry,
        data_dir: Path,
        *,
        picker: WindowFolderPicker | None = None,
        first_session: str | None = None,
        remote: tuple[str, str | None] | None = None,
        on_shown: Callable[[], object] | None = None,
    ) -> None:
        """`remote`: (target, path) of `harnessdesk --remote`: the page connects that host and
        opens a session there (docs/decisions.md, "Remote hosts"). `on_shown`: called once the
        window is on screen (the host's build starts then: docs/decisions/cold-start.md)."""
        self.api_app = api_app
        self.host_loop = host_loop
        self.webui = webui
        self.geometry = geometry
        self.data_dir = data_dir
        self.gui = chosen_gui()
        self.gtk = self.gui == "gtk"
        self._server: LoopbackServer | None = None
        self._server_future: concurrent.futures.Future[None] | None = None
        # GTK: None until `initialized` (pywebview would try to serve a scheme URL itself)
        url = None if self.gtk else str(webui / "index.html")
        if self.gtk:
            from desktop import gtkgeometry

            geometry.keep_on_screen(gtkgeometry.monitor_areas())
        window = webview.create_window(
            TITLE,
            url=url,
            js_api=None,  # set just below: the bridge needs the window for its pushes
            width=geometry.width,
            height=geometry.height,
            x=geometry.x,
            y=geometry.y,
            maximized=geometry.maximized,
            min_size=MIN_SIZE,
            background_color="#1e1e1e",
        )
        if window is None:  # typed optional by pywebview; a new window is always returned
            raise RuntimeError("pywebview did not create the window")
        self.window: webview.Window = window
        start_js = None
        if self.gtk:
            from desktop import gtkshell

            gtkshell.limit_web_memory()  # before webview.start builds the window's context
            start_js = functools.partial(gtkshell.start_js, self.window)
        self.pusher = Pusher(lambda script: self.window.run_js(script), start_js=start_js)
        self.bridge = Bridge(api_app, host_loop.loop, self.pusher)
        self.notifications = DesktopNotifications(self.open_from_notification)
        self.api = BridgeApi(self.bridge, self.ask_save_path, self.notify)
        self.window._js_api = self.api
        self.first_session = first_session
        self.remote = remote
        self._closer: Any = None
        self._settled = False
        if picker is not None:
            picker.bind(self.window, self.close_dialogs)
        events = self.window.events
        events.initialized += self._on_initialized
        events.before_show += self._on_before_show
        events.loaded += self._on_loaded
        if on_shown is not None:
            events.shown += on_shown
        if not self.gtk:  # GTK: desktop/gtkgeometry.py reads the window itself, in order
            events.resized += geometry.resized
            events.moved += geometry.moved
            events.maximized += geometry.maximize
            events.restored += geometry.restore
        events.closing += self._on_closing

    # ---- pywebview events --------------------------------------------------------------------

    def _on_initialized(self, renderer: str) -> None:
        if self.gtk:
            start = appscheme.START_URL
            if self.first_session:  # the page opens it on connect (`#session=` as on reload)
                start += "#session=" + quote(self.first_session, safe="")
            elif self.remote is not None:  # the page connects it and opens a session there
                target, path = self.remote
                start += (
                    "#remote=" + quote(target, safe="") + ("&path=" + quote(path, safe="") if path else "")
                )
            self.window.real_url = start  # type: ignore[assignment]  # inferred None upstream

    def _on_before_show(self) -> None:
        if self.gtk:
            from desktop import gtkgeometry, gtkshell

            gtkgeometry.track(gtkshell.browser_view(self.window).window, self.geometry)
            source = page_prelude() + paths.bridge_js().read_text(encoding="utf-8")
            gtkshell.install(self.window, self.webui, source, self.download_from_navigation)
            self._closer = gtkshell.close_file_dialogs
            if (socket_path := automation.requested()) is not None:
                automation.serve(self.window, socket_path)

    def _on_loaded(self) -> None:
        if not self.gtk:  # no document-start script here: evaluate once the page has loaded
            self.window.run_js(page_prelude() + paths.bridge_js().read_text(encoding="utf-8"))
        if not self._settled:  # once, when the page and the host are up and idle
            self._settled = True
            self.host_loop.loop.call_soon_threadsafe(self.host_loop.loop.call_later, SETTLE_AFTER, _settle)

    def _on_closing(self) -> None:
        with contextlib.suppress(OSError):
            self.geometry.save()
        self.bridge.close(wait=False)  # `run` waits for the host's handlers, once the window is gone

    # ---- actions -----------------------------------------------------------------------------

    def run(self) -> None:
        """Block in the GUI loop until the window is closed."""
        icon = paths.icon_file()
        webview.start(
            gui=self.gui,
            private_mode=False,
            storage_path=str(self.data_dir / "webview"),
            icon=str(icon) if icon else None,
            http_server=not self.gtk,
        )
        self.bridge.close()

    def settle(self) -> None:
        """After the GUI loop and the host have stopped: let late js_api hand-backs finish."""
        if self.gtk:
            from desktop import gtkshell

            gtkshell.settle_after_close()

    def activate(self) -> None:
        """A second launch asked us to come to the front."""
        with contextlib.suppress(Exception):
            self.window.show()
            self.window.restore()

    def close_dialogs(self) -> None:
        """Close the window's open file dialog, if any (from any thread): its caller went away."""
        if self._closer is not None:
            self._closer()

    def open_folder(self, path: str) -> None:
        """`harnessdesk PATH` handed to this window: open PATH's session here."""
        try:
            sid = self.host_loop.call(open_folder(self.api_app, path), timeout=30)
        except Exception as exc:
            log.warning("could not open %s: %s", path, exc)
            return
        script = f"window.harnessdesk && window.harnessdesk.app.openFromShell({json.dumps(sid)})"
        with contextlib.suppress(Exception):
            self.window.run_js(script)

    def notify(self, session_id: str, title: str, body: str) -> bool:
        """The page asks for a desktop notification about a session it does not show."""
        return self.notifications.notify(session_id, title, body, t("window.notificationOpen"))

    def open_from_notification(self, session_id: str) -> None:
        """The person clicked a notification: the window comes forward showing that session."""
        self.activate()
        self.show_session(session_id)

    def show_session(self, session_id: str) -> None:
        """`harnessdesk import` imported a session through this window's host: show it here."""
        script = f"window.harnessdesk && window.harnessdesk.app.openFromShell({json.dumps(session_id)})"
        with contextlib.suppress(Exception):
            self.window.run_js(script)

    def ask_save_path(self, suggested: str) -> str | None:
        with DIALOG_LOCK:
            result = self.window.create_file_dialog(
                webview.FileDialog.SAVE, directory=str(Path.home()), save_filename=suggested
            )
        if not result:
            return None
        return str(result[0] if isinstance(result, list | tuple) else result)

    def download_from_navigation(self, target: str) -> None:
        outcome = self.api.bridge_download(target)
        log.info("download %s: %s", target, outcome)

    def start_loopback(self, port: int, peers: SandboxPeers) -> None:
        """`--serve`: the loopback site on the same host app; prints the one-time URL line.
        `peers`: the host's view of its sandboxes (given to the host factory too)."""
        from host.server.binding import bind_socket, load_or_mint_token
        from host.server.run import LoopbackServer
        from host.server.site import build_site

        sock = bind_socket("127.0.0.1", port)
        token = load_or_mint_token(None)
        site = build_site(self.api_app, self.webui, token=token, peers=peers)
        server = self._server = LoopbackServer(site, sock)
        ready = asyncio.Event()

        async def serve() -> None:
            await server.serve(on_ready=ready.set)

        self._server_future = asyncio.run_coroutine_threadsafe(serve(), self.host_loop.loop)

        async def wait_ready() -> None:
            await asyncio.wait_for(ready.wait(), 10)

        self.host_loop.call(wait_ready())
        print(f"HarnessDesk listening on http://127.0.0.1:{server.port}/?token={token}", flush=True)

    def stop_loopback(self) -> None:
        if self._server is None:
            return
        self._server.stop()
        if self._server_future is not None:
            with contextlib.suppress(Exception):
                self._server_future.result(timeout=5)
