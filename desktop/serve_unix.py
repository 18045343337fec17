"""`harnessdesk serve --unix-socket PATH`: the host on a remote machine, reached through an SSH
forward of that socket (docs/decisions.md, "Remote hosts"; docs/threat-model.md, "Remote hosts").

- No TCP port: the socket is 0600 in a 0700 folder, masked in every sandbox.
- The token never crosses TCP: it leaves on stdout, as one JSON line (`{"harnessdesk": "ready",
  "token": …}`), which is the SSH channel the relaying host started this command on; a detached
  server also keeps it in `token` (0600) beside the socket, for the next connection to read over
  SSH.
- `--handover -`: one JSON line on stdin first — the relaying computer's model settings, keys and
  run flags, kept in memory only (never written here).
- `--attached`: ends when stdin closes (the SSH session is gone). `--detach`: goes on alone after
  the ready line (turns keep running while the laptop sleeps) and stops itself once no client has
  been connected and no turn has run for `--idle-exit` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contract import __version__
from desktop.i18n import t
from desktop.instance import LOCK_NAME, acquire
from desktop.options import named_paths
from desktop.windowlink import ChannelPicker, loopback_site, read_window
from host.engine.llm.overrides import RuntimeOverrides

READY_BOUND = 120.0
"""Seconds the launching process waits for the detached server's ready line."""
IDLE_CHECK = 30.0
INFO = "serve.json"
TOKEN = "token"
LOG = "serve.log"


class ServeError(Exception):
    """One line for the person (exit code 2)."""


def read_handover(source: str | None) -> dict[str, Any]:
    """The handover line (`-`: stdin), or {} without one."""
    if source is None:
        return {}
    if source != "-":
        raise ServeError(t("serve.handoverDash"))
    line = sys.stdin.buffer.readline(4 * 1024 * 1024)
    try:
        data = json.loads(line or b"{}")
    except ValueError as exc:
        raise ServeError(t("serve.handoverNotJson")) from exc
    if not isinstance(data, dict):
        raise ServeError(t("serve.handoverNotObject"))
    return data


def host_options(
    handover: dict[str, Any], args: argparse.Namespace
) -> tuple[RuntimeOverrides, dict[str, Any]]:
    """The run's overrides and `open_host` options from the handover (or the flags)."""
    given = handover.get("overrides")
    flags: dict[str, Any] = given if isinstance(given, dict) else {}
    overrides = RuntimeOverrides(
        provider=args.provider or flags.get("provider"),
        base_url=args.base_url or flags.get("baseUrl"),
        model=args.model or flags.get("model"),
    )
    options: dict[str, Any] = {}
    settings = handover.get("settings")
    if isinstance(settings, dict) and settings:
        options["pinned_settings"] = {k: v for k, v in settings.items() if isinstance(v, dict)}
    credentials = handover.get("credentials")
    if isinstance(credentials, dict) and credentials:
        handed = {k: v for k, v in credentials.items() if isinstance(k, str) and isinstance(v, str)}
        options["environ"] = {**os.environ, **handed}  # looked up only: never a child's environment
    return overrides, options


def run_unix(args: argparse.Namespace, data_dir: Path) -> int:
    socket_path = Path(os.path.abspath(os.path.expanduser(args.unix_socket)))
    handover = read_handover(args.handover)
    if args.detach:
        return _detached(args, data_dir, socket_path, handover)
    window = bool(getattr(args, "window", False))
    run = serve_unix(
        args, data_dir, socket_path, handover, _print_line, watch_stdin=args.attached or window, window=window
    )
    if not window:
        return asyncio.run(run)
    try:
        return asyncio.run(run)
    except Exception:  # the window has heard why on the error line: it says so, once
        return 2


def _print_line(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _detached(args: argparse.Namespace, data_dir: Path, socket_path: Path, handover: dict[str, Any]) -> int:
    """Fork: the child serves on its own (new session, output to `serve.log`); the parent waits
    for its ready line, prints it and exits, which ends the SSH command."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid > 0:
        os.close(write_end)
        data = b""
        deadline = time.monotonic() + READY_BOUND
        while b"\n" not in data and time.monotonic() < deadline:
            ready, _, _ = select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            data += chunk
        os.close(read_end)
        line = data.split(b"\n", 1)[0].decode("utf-8", "replace")
        if not line:
            print(t("serve.didNotStart"), file=sys.stderr)
            return 2
        _print_line(line)
        return 0 if '"ready"' in line else 2
    os.close(read_end)
    os.setsid()
    code = 2
    try:
        with contextlib.suppress(OSError):
            socket_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        log_fd = os.open(socket_path.parent / LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)

        def tell(line: str) -> None:
            with contextlib.suppress(OSError):
                os.write(write_end, (line + "\n").encode())
                os.close(write_end)

        code = asyncio.run(serve_unix(args, data_dir, socket_path, handover, tell, watch_stdin=False))
    except BaseException as exc:  # the parent hears why, then the child ends
        with contextlib.suppress(OSError):
            os.write(write_end, (json.dumps({"harnessdesk": "error", "message": str(exc)}) + "\n").encode())
    finally:
        os._exit(code)


async def serve_unix(
    args: argparse.Namespace,
    data_dir: Path,
    socket_path: Path,
    handover: dict[str, Any],
    tell: Callable[[str], None],
    *,
    watch_stdin: bool,
    window: bool = False,
) -> int:
    """`window`: the host of the desktop window that started it (docs/decisions/window-host-process.md):
    the window holds the data folder's instance lock and answers the folder dialog over
    stdin/stdout (desktop/windowlink.py); stdin closing ends it."""
    from host.api import open_host
    from host.server.run import LoopbackServer
    from host.server.unix import UnixPeerProtocol, bind_unix, build_unix_site

    folder = socket_path.parent
    instance = acquire(data_dir)
    if window and instance is None and _held_by_parent(data_dir):
        pass  # the window that started us holds the data folder
    elif window or instance is None:
        if instance is not None:  # `--window` only under the window holding this data folder
            instance.close()
        message = t("serve.otherInstance", data_dir=data_dir)
        tell(json.dumps({"harnessdesk": "error", "message": message}))
        raise ServeError(message)
    try:
        sock = bind_unix(socket_path)
    except OSError as exc:
        if instance is not None:
            instance.close()
        tell(json.dumps({"harnessdesk": "error", "message": str(exc)}))
        raise ServeError(str(exc)) from exc
    token = secrets.token_urlsafe(32)
    overrides, options = host_options(handover, args)
    loop = asyncio.get_running_loop()
    picker = ChannelPicker(loop, _print_line) if window else None
    try:
        runtime = await open_host(
            data_dir, overrides, masked=(*named_paths(args), folder), picker=picker, **options
        )
    except BaseException as exc:
        sock.close()
        if instance is not None:
            instance.close()
        tell(json.dumps({"harnessdesk": "error", "message": str(exc)}))
        raise
    server = LoopbackServer(
        build_unix_site(runtime.app, token=token, peers=runtime.peers),
        sock,
        log_level=args.log_level,
        http=UnixPeerProtocol,
    )

    site, url = None, None
    if window and getattr(args, "window_serve", None):
        site, url = await loopback_site(runtime, args.window_serve, args.port)

    def stop() -> None:
        runtime.engine.host.end_streams()
        server.stop()
        if site is not None:
            site.stop()

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop)
    mode = "window" if window else "attached" if watch_stdin else "detached"
    describe = runtime.engine.host.describe()
    sandbox = describe.sandbox is not None and describe.sandbox.kind != "none"
    version = os.environ.get("HARNESSDESK_BUNDLE") or __version__
    written: list[Path] = []
    if not watch_stdin:
        written.append(_write_private(folder / TOKEN, token + "\n"))
    info = {
        "pid": os.getpid(),
        "version": version,
        "mode": mode,
        "sandbox": sandbox,
        "socket": str(socket_path),
        # whose model settings it runs on: the relaying computer's, handed over at this launch,
        # or this machine's own (a connection that wants the other relaunches it)
        "settings": "handed" if handover else "own",
    }
    written.append(_write_private(folder / INFO, json.dumps(info) + "\n"))
    tasks: list[asyncio.Task[None]] = []
    if picker is not None:
        read_window(sys.stdin.buffer, loop, picker, stop)
    elif watch_stdin:
        _watch_stdin(loop, stop)
    elif args.idle_exit > 0:
        tasks.append(asyncio.create_task(_idle_exit(runtime, server, args.idle_exit, stop)))
    tell(
        json.dumps(
            {
                "harnessdesk": "ready",
                "token": token,
                "version": version,
                "pid": os.getpid(),
                "sandbox": sandbox,
                **({"url": url} if url else {}),
            }
        )
    )
    from host.heap import settle_when_warm

    settling = asyncio.create_task(settle_when_warm())  # docs/decisions/settled-heap.md
    try:
        await server.serve()
    finally:
        settling.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.to_thread(_remove_ours, written, socket_path)
        await runtime.close(bound=0.8)
        if instance is not None:
            instance.close()
    return 0


def _held_by_parent(data_dir: Path) -> bool:
    """The data folder's instance lock is held by the process that started us (the window)."""
    try:
        return int((data_dir / LOCK_NAME).read_text().split()[0]) == os.getppid()
    except (OSError, ValueError, IndexError):
        return False


def _remove_ours(written: list[Path], socket_path: Path) -> None:
    """The files this server wrote (its info only while it still names this process) and its socket."""
    for path in written:
        with contextlib.suppress(OSError, ValueError):
            if path.name != INFO or json.loads(path.read_text()).get("pid") == os.getpid():
                path.unlink()
    with contextlib.suppress(OSError):
        socket_path.unlink()


def _write_private(path: Path, text: str) -> Path:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def _watch_stdin(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> None:
    """Attached: stdin closing means the SSH session is gone; the server ends with it."""

    def wait() -> None:
        with contextlib.suppress(OSError, ValueError):
            while sys.stdin.buffer.read1(65536):  # type: ignore[union-attr]
                pass
        loop.call_soon_threadsafe(stop)

    threading.Thread(target=wait, name="harnessdesk-stdin", daemon=True).start()


async def _idle_exit(runtime: Any, server: Any, idle_for: float, stop: Callable[[], None]) -> None:
    """Detached: stop once nothing has happened for `idle_for` s (no client, no running turn)."""
    quiet_since = time.monotonic()
    while True:
        await asyncio.sleep(min(IDLE_CHECK, max(1.0, idle_for / 4)))
        connections = len(server.server.server_state.connections)
        running = any(s.running for s in await runtime.engine.sessions.list_sessions())
        if connections or running:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= idle_for:
            stop()
            return
