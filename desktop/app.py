"""`harnessdesk` with no subcommand: one pywebview window over the in-process host
(docs/architecture.md, "Desktop, command line and data").

Threads: GTK owns the main thread (`webview.start()`); the host runs on an asyncio loop in a
background thread started with the window; pywebview runs each js_api call on a thread of its
own; the bridge's pusher has one more. Closing the window disconnects every bridge exchange,
stops the optional loopback server, then awaits the host's shutdown hook (the real engine ends
running turns `aborted {by: "disposed"}` and flushes) before the process exits.

The host comes from ONE function, `build_host(args) -> (api_app, shutdown)`, the seam where the
real builder (`host.api.open_host`) plugs in; tests pass their own factory to `run_window`.
"""

from __future__ import annotations

import argparse
import os
import sys
from multiprocessing.connection import Connection
from pathlib import Path

from starlette.types import ASGIApp

from desktop import childhost, paths
from desktop.childhost import ChildHost
from desktop.folders import WindowFolderPicker, open_folder
from desktop.geometry import Geometry
from desktop.hostloop import Host, HostFactory, HostLoop
from desktop.hoststart import StartingHost, failure_text
from desktop.i18n import t
from desktop.instance import ActivationError, acquire, activate_running
from desktop.rendering import has_render_node

WEBKIT_FIX = "sudo apt-get install gir1.2-webkit2-4.1 gir1.2-gtk-3.0 (Debian/Ubuntu)"


class WindowError(Exception):
    """A user-facing reason the window cannot open: one line, exit code 2."""


# ---- the host seam ---------------------------------------------------------------------------


async def build_host(args: argparse.Namespace) -> Host:
    """THE seam: the API's ASGI app (`to_fetch_handler(api)`) and the host's shutdown hook.

    Awaited on the host loop's thread. The real host: `host.api.open_host` (engine + ApiProxy +
    fetch app); its `close()` ends running turns `aborted {by: "disposed"}` and flushes.
    """
    from desktop.options import named_paths
    from desktop.startup import skip_pydantic_plugin_scan

    skip_pydantic_plugin_scan()  # here, not before the window: it imports pydantic
    from host.api import open_host
    from host.engine.errors import EngineError
    from host.engine.llm.overrides import RuntimeOverrides

    overrides = RuntimeOverrides(provider=args.provider, base_url=args.base_url, model=args.model)
    picker = getattr(args, "folder_picker", None)  # the window's native folder dialog
    peers = getattr(args, "sandbox_peers", None)  # the `--serve` fence's view of the sandboxes
    try:
        host = await open_host(
            Path(args.data_dir), overrides, picker=picker, masked=named_paths(args), peers=peers
        )
    except EngineError as exc:
        raise WindowError(str(exc)) from exc
    return host.app, host.close


def _relay(conn: Connection, host: ASGIApp, loop: HostLoop) -> None:
    """A later `harnessdesk` command's API calls, relayed to the window's host. Imported on the
    first one: the relay brings the contract's models, which the window need not load before it is
    on screen (docs/decisions/cold-start.md)."""
    from desktop.instance_relay import serve_relay

    serve_relay(conn, host, loop.loop)


# ---- environment -----------------------------------------------------------------------------


def has_display() -> bool:
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def prepare_gui_env() -> None:
    """WebKitGTK by default on Linux (docs/decisions.md, "Performance and packaging").

    Without a GPU render node (a VM, Xvfb, a remote X session) WebKitGTK's DMA-BUF renderer
    shows a blank window: it is turned off there unless the user chose otherwise.
    """
    if not sys.platform.startswith("linux"):
        return
    os.environ.setdefault("PYWEBVIEW_GUI", "gtk")
    if not has_render_node():
        os.environ.setdefault("WEBKIT_DISABLE_DMABUF_RENDERER", "1")


def require_webkit() -> None:
    """The Linux window's engine is the system's WebKitGTK: say so in one line when it is missing
    (instead of pywebview's traceback naming every backend it tried)."""
    if os.environ.get("PYWEBVIEW_GUI") != "gtk":
        return
    try:
        import desktop.gtkshell  # noqa: F401  (loads GTK 3 and WebKit2 4.1 through introspection)
    except (ImportError, ValueError) as exc:
        reason = str(exc).strip() or type(exc).__name__
        raise WindowError(t("window.webkitMissing", reason=reason, fix=WEBKIT_FIX)) from exc


def folder_argument(path: str | None) -> str | None:
    """`harnessdesk PATH`: PATH as an absolute folder (relative to where we were started)."""
    if path is None:
        return None
    folder = Path(path).expanduser()
    try:
        folder = folder.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise WindowError(t("window.noSuchFolder", path=path)) from exc
    if not folder.is_dir():
        raise WindowError(t("window.notAFolder", path=path))
    return str(folder)


def remote_argument(args: argparse.Namespace) -> tuple[str, str | None] | None:
    """`harnessdesk --remote [user@]host[:port] [PATH]`: (target, PATH on that host)."""
    target = getattr(args, "remote", None)
    if not target:
        return None
    from contract.remotes import parse_target

    try:
        parse_target(target)
    except ValueError as exc:
        raise WindowError(t("window.badRemote", target=target, reason=exc)) from None
    return target, getattr(args, "path", None)


def _first_session(loop: HostLoop, app: ASGIApp, folder: str | None) -> str | None:
    """The session the window opens on for `harnessdesk PATH` (None: the usual start)."""
    if folder is None:
        return None
    try:
        return loop.call(open_folder(app, folder), timeout=30)
    except Exception as exc:  # OpenFolderError, or the host failed: the window opens anyway
        print(t("window.couldNotOpen", path=folder, reason=exc), file=sys.stderr)
        return None


# ---- the window ------------------------------------------------------------------------------


def run_window(
    args: argparse.Namespace,
    host_factory: HostFactory = build_host,
    webui: Path | None = None,
) -> int:
    """Open the window (or focus the running one) and block until it is closed."""
    remote = remote_argument(args)
    folder = None if remote else folder_argument(getattr(args, "path", None))
    if not has_display() and (folder is None or remote):
        print(t("window.noDisplay"), file=sys.stderr)
        return 2
    data_dir = paths.resolve_data_dir(args.data_dir)
    args.data_dir = str(data_dir)  # every factory sees the resolved dir
    primary = acquire(data_dir)
    if primary is not None and not has_display():  # PATH for a running instance, but none runs
        primary.close()
        print(t("window.noDisplay"), file=sys.stderr)
        return 2
    if primary is None:
        try:
            pid = activate_running(data_dir, open_path=folder)
        except ActivationError as exc:
            raise WindowError(str(exc)) from exc
        done = t("window.handedIt", path=folder) if folder else t("window.focusedIt")
        if remote:
            done += t("window.remoteThere", target=remote[0])
        print(t("window.alreadyRunning", pid=pid, done=done))
        return 0
    prepare_gui_env()
    webui = webui or paths.webui_dir()
    if not (webui / "index.html").is_file():
        raise WindowError(t("window.webuiMissing", path=webui / "index.html"))
    loop = HostLoop()
    loop.start()
    picker = WindowFolderPicker()
    from host.server.peers import SandboxPeers  # stdlib only: cheap while GTK starts

    peers = SandboxPeers()
    host: StartingHost | ChildHost
    if host_factory is build_host and childhost.wanted(args):
        # the host in a process of its own, started while GTK starts here; it asks the window
        # for the folder dialog (docs/decisions/window-host-process.md)
        host = ChildHost(loop, args, picker, webui if args.serve else None)
    else:
        args.folder_picker = picker  # the host factory hands it to the engine (capability `native`)
        args.sandbox_peers = peers  # the real factory hands it to the engine
        # built on its thread once the window is on screen, or at the first call that needs it
        # (docs/decisions/cold-start.md)
        host = StartingHost(loop, host_factory, args, deferred=True)
    shell = None
    try:
        require_webkit()
        from desktop.shell import Shell  # imports pywebview and the GUI toolkit: only now

        first = _first_session(loop, host, folder)  # waits for the host only for `harnessdesk PATH`
        geometry = Geometry(data_dir / "window.json")
        shell = Shell(
            host,
            loop,
            webui,
            geometry,
            data_dir,
            picker=picker,
            first_session=first,
            remote=remote,
            on_shown=host.start if isinstance(host, StartingHost) else None,
        )
        if args.serve:
            try:
                host.wait()  # the printed URL must answer at once
            except Exception as exc:
                raise WindowError(t("window.hostFailed", reason=failure_text(exc))) from exc
            if isinstance(host, ChildHost):  # the child serves it, behind its own fence
                print(f"HarnessDesk listening on {host.url}", flush=True)
            else:
                shell.start_loopback(args.port, peers)
        primary.listen(
            shell.activate,
            shell.open_folder,
            on_api=lambda conn: _relay(conn, host, loop),
            on_show=shell.show_session,
        )
        shell.run()  # a host that failed to build is shown in the window until it is closed
        if (failure := host.failure()) is not None:
            raise WindowError(t("window.hostFailed", reason=failure_text(failure))) from failure
    finally:
        if shell is not None:
            shell.stop_loopback()
        loop.stop(host.shutdown)
        if isinstance(host, ChildHost):
            host.kill()  # no-op once it ended; never leave it behind the window
        if shell is not None:
            shell.settle()
        primary.close()
    return 0
