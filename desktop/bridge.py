"""The desktop fetch bridge, Python half: the window's `/api/*` traffic without a socket
(docs/architecture.md, "The desktop fetch bridge").

JS (desktop/bridge.js) calls the pywebview js_api below with plain JSON requests; we drive the
host's ASGI app in-process through `host.fetch.asgi_driver` on the host's asyncio loop.

- Unary: `bridge_fetch(request)` returns `{status, headers: [[k, v]], body, bodyEncoding}` in
  one js_api round trip (the cheapest path: most calls are small JSON).
- Streams (SSE, `/api/events.*`): `bridge_stream(request)` returns the head; a `Pusher` thread
  sends body chunks with `window.run_js("window.harnessdeskBridge._push([...])")`, at most one
  push per 4 ms unless 256 KiB are waiting (desktop/pusher.py), chunks of one stream merged, bytes text-safe
  (incrementally decoded UTF-8 for textual types, else base64), then an end or error marker.
- `bridge_cancel(id)` delivers `http.disconnect` into that exchange, which cancels the host
  task; `close()` (window closing) does so for every open exchange.

Only path-only `/api/*` targets are served (no scheme, no host, no `..`): it is not a proxy.
Requests carry the ASGI scope extension `harnessdesk` = `{"client": "window"}` so the fetch
handler can allow privileged methods; a browser over loopback can never set a scope key.
"""

from __future__ import annotations

import asyncio
import base64
import codecs
import contextlib
import inspect
import logging
import re
import webbrowser
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from starlette.types import ASGIApp

from desktop.pusher import Pusher, merge
from host.fetch.asgi_driver import AsgiAppError, AsgiExchange

__all__ = ["Bridge", "BridgeApi", "BridgeRefused", "Pusher", "api_target", "merge"]

log = logging.getLogger("desktop.bridge")
T = TypeVar("T")

WINDOW_EXTENSION = {"harnessdesk": {"client": "window", "carrier": "bridge"}}
HIGH_WATER_BYTES = 8 * 1024 * 1024
CLOSE_BOUND = 2.0
"""Seconds a closing window waits for the host's handlers of its open exchanges to end."""
_TEXTUAL = re.compile(r"^(text/|application/(json|[\w.+-]*\+json|javascript|xml))", re.I)


class BridgeRefused(Exception):
    """The request is not one the bridge serves; answered as a 404."""


def api_target(url: object) -> str:
    """The path-and-query of an `/api/*` request, or BridgeRefused."""
    if not isinstance(url, str):
        raise BridgeRefused("url must be a string")
    parts = urlsplit(url)
    path = parts.path
    if parts.scheme or parts.netloc or url.startswith("//") or not path.startswith("/api/"):
        raise BridgeRefused("the bridge serves only /api/* of this app")
    if ".." in path.split("/") or "\\" in path:
        raise BridgeRefused("path traversal refused")
    return path + (f"?{parts.query}" if parts.query else "")


def decode_body(request: dict[str, Any]) -> bytes:
    body = request.get("body")
    if body is None:
        return b""
    if request.get("bodyEncoding") == "base64":
        return base64.b64decode(body)
    return str(body).encode("utf-8")


def encode_body(body: bytes) -> tuple[str, str]:
    """(body, bodyEncoding): text when it is valid UTF-8, else base64."""
    try:
        return body.decode("utf-8"), "text"
    except UnicodeDecodeError:
        return base64.b64encode(body).decode("ascii"), "base64"


def is_textual(headers: list[tuple[str, str]]) -> bool:
    ctype = next((v for k, v in headers if k.lower() == "content-type"), "")
    return bool(_TEXTUAL.match(ctype.strip()))


def refusal(message: str, status: int = 404) -> dict[str, Any]:
    """A plain-text answer the bridge gives itself: 404 for a path it does not carry, 503 for a
    call the stopped host can no longer make."""
    return {
        "status": status,
        "headers": [["content-type", "text/plain; charset=utf-8"]],
        "body": message,
        "bodyEncoding": "text",
    }


class HostGone(Exception):
    """The host's loop stopped before a call from the page was answered."""


CALL_SLICE = 0.5
"""Seconds a page call waits before it looks again whether the host's loop still runs."""


class Bridge:
    """Drives the API app for the window; blocking entry points are for pywebview's threads."""

    def __init__(self, app: ASGIApp, loop: asyncio.AbstractEventLoop, pusher: Pusher) -> None:
        self.app = app
        self.loop = loop
        self.pusher = pusher
        self._live: dict[str, AsgiExchange] = {}  # touched on the loop thread only
        self._ending: list[AsgiExchange] = []
        """Disconnected by `close(wait=False)`; the next `close()` waits for their handlers."""
        self._cancelled: set[str] = set()
        self._pumps: set[asyncio.Task[None]] = set()
        self._drained = asyncio.Event()
        self._closed = False
        pusher.on_push = lambda: loop.call_soon_threadsafe(self._drained.set)

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the host's loop and wait for it — in slices, so a caller whose loop
        stopped under it (the window closing) is let go instead of holding the process's exit."""
        if self.loop.is_closed():
            coro.close()
            raise HostGone("the host has stopped")
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        while True:
            try:
                return future.result(timeout=CALL_SLICE)
            except TimeoutError:
                if not self.loop.is_running():
                    future.cancel()
                    if inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
                        coro.close()  # sent as the loop stopped: it never ran, and never will
                    raise HostGone("the host has stopped") from None

    def _exchange(self, request: dict[str, Any], target: str) -> AsgiExchange:
        headers: dict[str, str] = {}
        for key, value in request.get("headers") or []:
            if str(key).lower() != "host":
                headers[str(key).lower()] = str(value)
        return AsgiExchange(
            self.app,
            str(request.get("method") or "GET"),
            target,
            headers,
            decode_body(request),
            extensions=WINDOW_EXTENSION,
        )

    async def _open(self, request_id: str, exchange: AsgiExchange) -> bool:
        """Register and start; False when the caller cancelled or the window closed first."""
        if self._closed or request_id in self._cancelled:
            self._cancelled.discard(request_id)
            return False
        self._live[request_id] = exchange
        await exchange.start()
        return True

    # ---- unary -------------------------------------------------------------------------------

    def fetch(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            target = api_target(request.get("url"))
        except BridgeRefused as exc:
            return refusal(str(exc))
        try:
            return self._call(self._unary(str(request.get("id")), self._exchange(request, target)))
        except HostGone as exc:
            return refusal(str(exc), 503)

    async def _unary(self, request_id: str, exchange: AsgiExchange) -> dict[str, Any]:
        try:
            if not await self._open(request_id, exchange):
                return {"status": 499, "headers": [], "body": None, "bodyEncoding": "text"}
            chunks = [chunk async for chunk in exchange.body()]
            body, encoding = encode_body(b"".join(chunks))
            head = {"status": exchange.status, "headers": exchange.headers}
            return {**head, "body": body, "bodyEncoding": encoding}
        except AsgiAppError as exc:
            return {"status": 500, "headers": [], "body": f"host error: {exc}", "bodyEncoding": "text"}
        finally:
            self._live.pop(request_id, None)
            await exchange.aclose()

    # ---- streams -----------------------------------------------------------------------------

    def stream(self, request: dict[str, Any]) -> dict[str, Any]:
        """Start a streamed exchange; returns its head while a task pumps the body."""
        request_id = str(request.get("id"))
        try:
            target = api_target(request.get("url"))
        except BridgeRefused as exc:
            self.pusher.put(request_id, "t", str(exc))
            self.pusher.put(request_id, "e")
            return {**refusal(str(exc)), "body": None}
        try:
            return self._call(self._stream(request_id, self._exchange(request, target)))
        except HostGone as exc:
            return {**refusal(str(exc), 503), "body": None}

    async def _stream(self, request_id: str, exchange: AsgiExchange) -> dict[str, Any]:
        try:
            opened = await self._open(request_id, exchange)
        except BaseException:
            self._live.pop(request_id, None)
            await exchange.aclose()
            raise
        if not opened:
            return {"status": 499, "headers": []}
        task = asyncio.create_task(self._pump(request_id, exchange))
        self._pumps.add(task)
        task.add_done_callback(self._pumps.discard)
        return {"status": exchange.status, "headers": exchange.headers}

    async def _pump(self, request_id: str, exchange: AsgiExchange) -> None:
        textual = is_textual(exchange.headers)
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        try:
            async for chunk in exchange.body():
                while self.pusher.pending_bytes > HIGH_WATER_BYTES and not self._closed:
                    self._drained.clear()  # the page is behind: let the app wait
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._drained.wait(), 0.1)
                if textual:
                    if text := decoder.decode(chunk):
                        self.pusher.put(request_id, "t", text)
                else:
                    self.pusher.put(request_id, "b", chunk)
            if request_id in self._live:  # not cancelled: the page still listens
                if textual and (tail := decoder.decode(b"", final=True)):
                    self.pusher.put(request_id, "t", tail)
                self.pusher.put(request_id, "e")
        except AsgiAppError as exc:
            self.pusher.put(request_id, "x", str(exc) or "host error")
        except Exception:
            log.exception("bridge stream %s failed", request_id)
            self.pusher.put(request_id, "x", "bridge error")
        finally:
            self._live.pop(request_id, None)
            await exchange.aclose()

    # ---- cancel and close --------------------------------------------------------------------

    def cancel(self, request_id: str) -> None:
        """From any thread: disconnect the exchange (or refuse it if it has not started yet)."""
        self.loop.call_soon_threadsafe(self._cancel, str(request_id))

    def _cancel(self, request_id: str) -> None:
        exchange = self._live.pop(request_id, None)
        if exchange is None:
            self._cancelled.add(request_id)
        else:
            exchange.disconnect()

    def close(self, wait: bool = True) -> None:
        """The window is closing: stop pushing and disconnect every open exchange. With `wait`,
        also wait (at most `CLOSE_BOUND` s) until the host's handlers of every exchange
        disconnected so far have ended, so they finish before the host shuts down. The window's
        own closing handler must not wait: a handler ending then answers its page call through
        the GUI thread, which would be blocked here while the window goes away."""
        self.pusher.close()
        if self.loop.is_closed():
            return

        async def disconnect_all() -> None:
            self._closed = True
            for exchange in self._live.values():
                exchange.disconnect()
                self._ending.append(exchange)
            self._live.clear()
            if wait:
                ending, self._ending = self._ending, []
                await asyncio.gather(*(exchange.finished(CLOSE_BOUND) for exchange in ending))

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(disconnect_all(), self.loop).result(timeout=CLOSE_BOUND + 3)

    # ---- downloads ---------------------------------------------------------------------------

    def head(self, target: str) -> tuple[int, list[tuple[str, str]]]:
        async def run() -> tuple[int, list[tuple[str, str]]]:
            exchange = await AsgiExchange(self.app, "HEAD", target, extensions=WINDOW_EXTENSION).start()
            await exchange.aclose()
            return exchange.status, exchange.headers

        return self._call(run())

    def save(self, target: str, dest: Path) -> tuple[int, int]:
        """GET `target` into `dest` chunk by chunk (via `dest.part`); (status, bytes written)."""

        async def run() -> tuple[int, int]:
            exchange = await AsgiExchange(self.app, "GET", target, extensions=WINDOW_EXTENSION).start()
            part = dest.with_name(dest.name + ".part")
            written = 0
            try:
                if exchange.status != 200:
                    return exchange.status, 0
                with part.open("wb") as f:
                    async for chunk in exchange.body():
                        await asyncio.to_thread(f.write, chunk)
                        written += len(chunk)
                part.replace(dest)
                return exchange.status, written
            finally:
                await exchange.aclose()
                part.unlink(missing_ok=True)

        return self._call(run())


def download_name(headers: list[tuple[str, str]], fallback: str = "harnessdesk-export.zip") -> str:
    """The name a download suggests: RFC 6266's UTF-8 `filename*` first (a title in any script),
    else the ASCII `filename`; never a path."""
    disposition = next((v for k, v in headers if k.lower() == "content-disposition"), "")
    exact = re.search(r"filename\*=UTF-8''([^;]+)", disposition, re.IGNORECASE)
    match = exact or re.search(r'filename="?([^";]+)"?', disposition)
    raw = unquote(match.group(1).strip()) if exact and match else (match.group(1) if match else "")
    name = Path(raw.replace("\\", "/")).name
    return name if name not in ("", ".", "..") else fallback


class BridgeApi:
    """The pywebview `js_api` object: public methods become `window.pywebview.api.bridge_*`.

    Only underscore attributes besides the methods: pywebview exposes every public attribute.
    """

    def __init__(
        self,
        bridge: Bridge,
        ask_save_path: Callable[[str], str | None],
        notify: Callable[[str, str, str], bool] | None = None,
    ) -> None:
        self._bridge = bridge
        self._ask_save_path = ask_save_path
        self._notify = notify

    def bridge_fetch(self, request: dict[str, Any]) -> dict[str, Any]:
        return self._bridge.fetch(request)

    def bridge_stream(self, request: dict[str, Any]) -> dict[str, Any]:
        return self._bridge.stream(request)

    def bridge_cancel(self, request_id: str) -> bool:
        self._bridge.cancel(request_id)
        return True

    def bridge_open_external(self, url: str) -> bool:
        """Open http(s)/mailto links in the system browser; anything else is refused."""
        if urlsplit(str(url)).scheme.lower() not in ("http", "https", "mailto"):
            return False
        return bool(webbrowser.open(str(url), new=2))

    def bridge_notify(self, session_id: str, title: str, body: str) -> bool:
        """A desktop notification about a session (desktop/notify.py); False when none shows."""
        if self._notify is None:
            return False
        try:
            return self._notify(str(session_id)[:200], str(title)[:200], str(body)[:500])
        except Exception:
            log.exception("the desktop notification failed")
            return False

    def bridge_download(self, url: str) -> dict[str, Any]:
        """HEAD for the file name, ask where to save, then stream the body to disk."""
        try:
            target = api_target(url)
        except BridgeRefused as exc:
            return {"ok": False, "status": 404, "error": str(exc)}
        status, headers = self._bridge.head(target)
        if status != 200:
            return {"ok": False, "status": status}
        chosen = self._ask_save_path(download_name(headers))
        if not chosen:
            return {"ok": False, "cancelled": True}
        status, size = self._bridge.save(target, Path(chosen))
        return {"ok": status == 200, "status": status, "path": chosen, "bytes": size}
