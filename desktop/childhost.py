"""The window's host in a process of its own (docs/decisions/window-host-process.md).

`ChildHost` starts `harnessdesk serve --unix-socket PATH --window` (a private 0700 folder, a
per-launch token on the child's first stdout line, the Unix socket's fence unchanged) and is the
bridge's ASGI app: each request the page makes is forwarded over that socket with one httpx
client (`AsyncHTTPTransport(uds=…)`), its answer streamed back as it comes. The bridge, its
refusals and its cancels are unchanged; the window's process keeps only GTK, WebKit's glue and
this forwarding — the engine, the store's writer and the provider streams run in the child.

- The child asks the window for its folder dialog over its stdin/stdout (desktop/windowlink.py).
- The window closing closes the child's stdin; the child ends its turns and flushes as `serve`
  does (bounded), and is killed if it has not ended after `STOP_BOUND` seconds.
- A child that dies is final for this window: every request is then answered at once with the
  "host failed" marker (desktop/hoststart.py) and one line saying so, which the page shows.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.types import Receive, Scope, Send

from desktop.hostloop import HostLoop
from desktop.hoststart import START_TIMEOUT, answer_failed
from desktop.i18n import t
from desktop.windowlink import MAX_LINE, WindowSide

if TYPE_CHECKING:
    import httpx  # imported on the host loop's thread when first used: not on the window's start

log = logging.getLogger("desktop.childhost")

ENV = "HARNESSDESK_WINDOW_HOST"
"""`child`: the host in a child process; anything else: the host on a thread of the window's own
process, still the default — side by side on a busy machine the child did not make the window
keep up better (docs/decisions/window-host-process.md)."""
STOP_BOUND = 8.0
"""Seconds the closing window waits for the child to end its turns and flush before killing it."""
LOOPBACK = "http://localhost"
_DROP_REQUEST = {b"host", b"origin", b"referer", b"authorization", b"connection", b"content-length"}
_DROP_RESPONSE = {b"connection", b"keep-alive", b"transfer-encoding"}
UNPRIVILEGED = (b"x-harnessdesk-unprivileged", b"1")


def wanted(args: argparse.Namespace) -> bool:
    """Whether this window runs its host in a child process."""
    return os.environ.get(ENV, "").strip().lower() == "child"


def self_command() -> list[str]:
    """How to run `harnessdesk` again: the frozen bundle's binary, or this interpreter."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "desktop"]


class ChildFailed(Exception):
    """The child could not start, or stopped: final for this window."""


class ChildHost:
    """The host process of one window, and the ASGI app forwarding to it."""

    def __init__(
        self,
        loop: HostLoop,
        args: argparse.Namespace,
        picker: Any,
        webui: Path | None = None,
        timeout: float = START_TIMEOUT,
    ) -> None:
        """`webui`: with `--serve`, the child serves the loopback site of these pages itself."""
        self.timeout = timeout
        self._loop = loop
        self._folder = Path(tempfile.mkdtemp(prefix="harnessdesk-host-"))  # 0700
        self.socket_path = self._folder / "host.sock"
        argv = [*self_command(), "serve", "--unix-socket", str(self.socket_path), "--window"]
        argv += ["--data-dir", str(args.data_dir), "--log-level", str(getattr(args, "log_level", "warning"))]
        for flag, value in (
            ("--provider", args.provider),
            ("--base-url", args.base_url),
            ("--model", args.model),
        ):
            if value:
                argv += [flag, str(value)]
        if webui is not None:
            argv += ["--window-serve", str(webui), "--port", str(getattr(args, "port", 0) or 0)]
        self.url: str | None = None
        """The loopback site's URL (with `webui`), once the child is ready."""
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True)
        self._ready: Future[str] = Future()
        self._closing = False
        self._stopped: ChildFailed | None = None
        self._client: httpx.AsyncClient | None = None
        self._write_lock = threading.Lock()
        self._side = WindowSide(loop.loop, picker.pick, self._write)
        threading.Thread(target=self._read, name="harnessdesk-child-link", daemon=True).start()

    # ---- the channel -------------------------------------------------------------------------

    def _write(self, line: str) -> None:
        stdin = self.proc.stdin
        if stdin is None:
            return
        with self._write_lock:
            stdin.write(line.encode("utf-8") + b"\n")
            stdin.flush()

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        with contextlib.suppress(OSError, ValueError):
            while raw := stdout.readline(MAX_LINE):
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue  # not ours (a library printing): the channel is JSON lines only
                if not isinstance(message, dict):
                    continue
                kind = message.get("harnessdesk")
                if kind == "ready" and not self._ready.done():
                    self.url = str(message["url"]) if message.get("url") else None
                    self._ready.set_result(str(message.get("token") or ""))
                elif kind == "error" and not self._ready.done():
                    self._ready.set_exception(ChildFailed(str(message.get("message") or "error")))
                else:
                    self._side.hear(message)
        code = self.proc.wait()
        self._side.cancel_all()
        if self._closing:
            return
        stopped = ChildFailed(t("window.hostStopped", code=code))
        if not self._ready.done():
            self._ready.set_exception(stopped)
        failed = self._ready.exception()  # why it could not start, when it said so
        self._stopped = failed if isinstance(failed, ChildFailed) else stopped
        log.error("the host process stopped (exit code %s)", code)

    # ---- the StartingHost interface app.py uses ---------------------------------------------

    def wait(self) -> None:
        """Block until the child answers, or raise why it could not start."""
        self._ready.result(self.timeout)

    def failure(self) -> BaseException | None:
        """Why the child could not start (None while it starts, once it runs, or when it was
        stopped by the window closing)."""
        if not self._ready.done() or self._ready.cancelled():
            return None
        return self._ready.exception()

    async def shutdown(self) -> None:
        """The window closed: close the child's stdin (it ends its turns and flushes), wait for it
        (bounded), then kill it; forget the socket's folder."""
        self._closing = True
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            await asyncio.to_thread(self.proc.wait, STOP_BOUND)
        except subprocess.TimeoutExpired:
            log.warning("the host process did not end in %s s: killed", STOP_BOUND)
            self.proc.kill()
            await asyncio.to_thread(self.proc.wait, 5)
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.aclose()
        shutil.rmtree(self._folder, ignore_errors=True)

    def kill(self) -> None:
        """Last resort from any thread (the window's process is leaving)."""
        self._closing = True
        with contextlib.suppress(OSError):
            self.proc.kill()
        shutil.rmtree(self._folder, ignore_errors=True)

    # ---- the ASGI app ------------------------------------------------------------------------

    async def _http(self) -> httpx.AsyncClient:
        import httpx

        if self._stopped is not None:
            raise self._stopped
        token = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self._ready)), self.timeout)
        if self._client is None:
            self._client = httpx.AsyncClient(
                base_url=LOOPBACK,
                transport=httpx.AsyncHTTPTransport(uds=str(self.socket_path)),
                headers={"authorization": f"Bearer {token}"},
                timeout=httpx.Timeout(None, connect=10.0),
                trust_env=False,
            )
        return self._client

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            client = await self._http()
        except ChildFailed as exc:
            await answer_failed(send, exc)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _DROP_REQUEST]
        verdict = scope.get("harnessdesk.caller")
        if isinstance(verdict, dict) and not verdict.get("privileged", False):
            headers.append(UNPRIVILEGED)  # a fence in this process said no: the child hears it
        query = scope.get("query_string") or b""
        target = scope["path"] + (f"?{query.decode('latin-1')}" if query else "")
        request = client.build_request(scope["method"], target, headers=headers, content=bytes(body))
        sent_all = asyncio.Event()
        forward = asyncio.create_task(self._forward(client, request, send, sent_all))
        gone = asyncio.ensure_future(receive())  # http.disconnect: the page cancelled, or all sent
        try:
            await asyncio.wait({forward, gone}, return_when=asyncio.FIRST_COMPLETED)
            if not forward.done() and not sent_all.is_set():
                forward.cancel()  # the caller went away: the child's handler sees its connection end
            await asyncio.gather(forward, return_exceptions=True)
        finally:
            gone.cancel()
            if not forward.done():
                forward.cancel()
        if not forward.cancelled() and (error := forward.exception()) is not None:
            raise error

    async def _forward(
        self, client: httpx.AsyncClient, request: httpx.Request, send: Send, sent_all: asyncio.Event
    ) -> None:
        import httpx

        try:
            response = await client.send(request, stream=True)
        except httpx.TransportError:
            await asyncio.sleep(0)  # the reader thread may be marking the child stopped
            if self._stopped is not None or self.proc.poll() is not None:
                await answer_failed(
                    send, self._stopped or ChildFailed(t("window.hostStopped", code=self.proc.poll()))
                )
                sent_all.set()
                return
            raise
        try:
            headers = [(k, v) for k, v in response.headers.raw if k.lower() not in _DROP_RESPONSE]
            await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            sent_all.set()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await response.aclose()
