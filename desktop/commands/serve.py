"""`harnessdesk serve`: the host and the web UI on a loopback port (or, with `--unix-socket`, the
server a remote host runs: desktop/serve_unix.py), until SIGINT/SIGTERM (docs/architecture.md,
"Desktop, command line and data").

The same host as the window (`host.api.open_host`), under the data dir's lock; a later
`harnessdesk PATH` or `harnessdesk acp` on the same data dir reaches it over the instance channel.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.i18n import t
from desktop.options import CliError, one_line, port_number
from desktop.paths import resolve_data_dir, webui_dir

if TYPE_CHECKING:
    from desktop.instance import PrimaryInstance
    from host.api import HostRuntime

CLOSE_BOUND = 0.8
"""Seconds `serve` gives the engine to end turns and flush after a stop signal: with uvicorn's
1 s grace for in-flight requests, SIGTERM exits within 2 s (docs/decisions.md)."""

LINK_FILE_SECONDS = 120.0
"""How long the private page that `--open` hands the browser stays on disk."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    serve = sub.add_parser("serve", help=t("cli.serveCommand"))
    serve.add_argument("--host", default="127.0.0.1", help=t("cli.host"))
    serve.add_argument("--allow-remote", action="store_true", help=t("cli.allowRemote"))
    serve.add_argument("--port", type=port_number, default=0, help=t("cli.servePort"))
    serve.add_argument("--trusted-host", action="append", default=[], help=t("cli.trustedHost"))
    serve.add_argument("--token-file", help=t("cli.tokenFile"))
    serve.add_argument("--open", action="store_true", help=t("cli.open"))
    # a remote host's server (docs/decisions.md, "Remote hosts"): desktop/serve_unix.py
    serve.add_argument("--unix-socket", metavar="PATH", help=t("cli.unixSocket"))
    serve.add_argument("--handover", metavar="-", help=t("cli.handover"))
    lifetime = serve.add_mutually_exclusive_group()
    lifetime.add_argument("--attached", action="store_true", help=t("cli.attached"))
    lifetime.add_argument("--detach", action="store_true", help=t("cli.detach"))
    serve.add_argument("--idle-exit", type=float, default=0.0, metavar="SECONDS", help=t("cli.idleExit"))
    # the desktop window's own host process (docs/decisions/window-host-process.md): not for people
    serve.add_argument("--window", action="store_true", help=argparse.SUPPRESS)
    serve.add_argument("--window-serve", metavar="WEBUI", help=argparse.SUPPRESS)
    return serve  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    from desktop.options import engine_refusal_in_one_line

    with one_line(OSError):
        data_dir = resolve_data_dir(args.data_dir)
        if args.unix_socket:
            from desktop.serve_unix import ServeError, run_unix

            with one_line(ServeError):
                return run_unix(args, data_dir)
        if args.attached or args.detach or args.handover:
            raise CliError(t("cli.unixSocketOnly"))
        with engine_refusal_in_one_line():
            return asyncio.run(_serve(args, data_dir))


async def _serve(args: argparse.Namespace, data_dir: Path) -> int:
    """The lock, the socket and the line first; the host is built after it, while the browser
    starts: a request that comes meanwhile waits in the socket's backlog and is answered once
    the host is up (docs/decisions/cold-start.md). Until then nothing but the standard library
    and the lock is loaded."""
    from desktop.hostopen import lock, open_locked
    from host.server.binding import (
        bind_socket,
        is_loopback_bind,
        load_or_mint_token,
        url_host,
        write_link_file,
    )

    if not is_loopback_bind(args.host):
        if not args.allow_remote:
            raise CliError(t("cli.refuseRemote", host=args.host))
        print(t("cli.remoteWarning", host=args.host), file=sys.stderr, flush=True)
    instance = lock(data_dir)
    try:
        token = load_or_mint_token(Path(args.token_file) if args.token_file else None)
        sock = bind_socket(args.host, args.port)
    except (OSError, ValueError) as exc:
        instance.close()
        raise CliError(str(exc)) from exc
    url = f"http://{url_host(args.host)}:{sock.getsockname()[1]}/?token={token}"
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    on_stop: list[Callable[[], None]] = []  # what a stop does once the server runs

    def stop() -> None:
        stopping.set()
        for step in on_stop:
            step()

    for sig in (signal.SIGINT, signal.SIGTERM):  # before the line: a stop right after it is graceful
        # (not on Windows, nor off the main thread: there whoever runs us handles signals)
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop)
    link_file: Path | None = None

    def announce() -> None:
        nonlocal link_file
        print(f"HarnessDesk listening on {url}", flush=True)
        if args.open:
            link_file = write_link_file(data_dir, url)
            import webbrowser  # only for --open: it is not free to import

            webbrowser.open(link_file.as_uri())  # the browser starts while the host is built
            loop.call_later(LINK_FILE_SECONDS, _remove, link_file)

    # flags only the host can judge (`--provider nope`) are refused before any line, as every
    # bad flag is; without them the line comes first
    judged_by_host = any(getattr(args, name, None) for name in ("provider", "base_url", "model"))
    if not judged_by_host:
        announce()
    try:
        try:
            runtime = await open_locked(data_dir, instance, args)
        except BaseException:
            sock.close()
            raise
        try:
            if judged_by_host:
                announce()
            await _run_site(args, runtime, sock, token, instance, loop, stopping, on_stop)
        finally:
            await runtime.close(bound=CLOSE_BOUND)
            instance.close()
    finally:
        if link_file is not None:
            _remove(link_file)
    return 0


async def _run_site(
    args: argparse.Namespace,
    runtime: HostRuntime,
    sock: socket.socket,
    token: str,
    instance: PrimaryInstance,
    loop: asyncio.AbstractEventLoop,
    stopping: asyncio.Event,
    on_stop: list[Callable[[], None]],
) -> None:
    """The site on the bound socket until a stop: at once, if one came while the host was built."""
    from desktop.folders import open_folder
    from desktop.instance_relay import serve_relay
    from host.heap import settle_when_warm
    from host.server import build_site
    from host.server.run import LoopbackServer

    site = build_site(
        runtime.app, webui_dir(), token=token, peers=runtime.peers, trusted_hosts=tuple(args.trusted_host)
    )
    server = LoopbackServer(site, sock, log_level=args.log_level)

    def stop_serving() -> None:
        runtime.engine.host.end_streams()  # open streams end now, so uvicorn need not wait for them
        server.stop()

    on_stop.append(stop_serving)
    if stopping.is_set():  # stopped while the host was built: nobody is served
        sock.close()
        return
    warming = asyncio.create_task(settle_when_warm())  # while the browser starts

    def open_here(path: str) -> None:
        """`harnessdesk PATH` while we serve: register it (every open tab sees it arrive)."""
        asyncio.run_coroutine_threadsafe(open_folder(runtime.app, path), loop).result(30)

    instance.listen(lambda: None, open_here, on_api=lambda conn: serve_relay(conn, runtime.app, loop))
    try:
        await server.serve()
    finally:
        warming.cancel()


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
