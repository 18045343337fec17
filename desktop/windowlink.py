"""The small channel between the window and its host process (docs/decisions/window-host-process.md).

The window starts `harnessdesk serve --unix-socket PATH --window` with pipes on its stdin and
stdout. Every line is one JSON object:

- host → window, first: the ready line of `serve` (`{"harnessdesk": "ready", "token": …}`) or
  its error line;
- host → window: `{"harnessdesk": "pick", "id": N, "file": null | "gguf"}` (the engine's
  `NativePicker` wants the window's folder dialog) and `{"harnessdesk": "unpick", "id": N}` (its
  caller went away: close the dialog);
- window → host: `{"id": N, "path": "…" | null}` or `{"id": N, "error": "…"}`.

The host's stdin closing means the window is gone: the host stops (as `--attached` does).
With `harnessdesk --serve`, the host also serves the loopback site itself (`--window-serve
WEBUI`, `--port`), behind its own fence and its own sandbox peers, and names its URL in the ready
line: a browser's traffic never passes through the window's process.
Everything else the page needs from the window (notifications, external links, the save dialog
of a download) never reaches the host: the page asks the bridge for it directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import IO, Any

log = logging.getLogger("desktop.windowlink")

MAX_LINE = 1024 * 1024


class ChannelPicker:
    """The host process's `NativePicker`: asks the window over stdout, hears it on stdin."""

    def __init__(self, loop: asyncio.AbstractEventLoop, out: Callable[[str], None]) -> None:
        self._loop = loop
        self._out = out
        self._next = 0
        self._waiting: dict[int, asyncio.Future[str | None]] = {}
        self._gone = False

    async def pick(self, file: str | None = None) -> str | None:
        from host.engine.errors import HostActionFailed

        if self._gone:
            raise HostActionFailed("the window is gone")
        self._next += 1
        ask_id = self._next
        answer: asyncio.Future[str | None] = self._loop.create_future()
        self._waiting[ask_id] = answer
        self._out(json.dumps({"harnessdesk": "pick", "id": ask_id, "file": file}))
        try:
            return await answer
        except asyncio.CancelledError:
            self._out(json.dumps({"harnessdesk": "unpick", "id": ask_id}))
            raise
        finally:
            self._waiting.pop(ask_id, None)

    def hear(self, line: bytes) -> None:
        """One line from the window (called on the host's loop)."""
        from host.engine.errors import HostActionFailed

        try:
            message = json.loads(line)
            answer = self._waiting.get(int(message["id"]))
        except (ValueError, KeyError, TypeError):
            log.warning("the window sent a line the host cannot read")
            return
        if answer is None or answer.done():
            return
        if "error" in message:
            answer.set_exception(HostActionFailed(str(message["error"])))
        else:
            path = message.get("path")
            answer.set_result(str(path) if path else None)

    def window_gone(self) -> None:
        """stdin closed: every open question ends unanswered."""
        from host.engine.errors import HostActionFailed

        self._gone = True
        for answer in self._waiting.values():
            if not answer.done():
                answer.set_exception(HostActionFailed("the window is gone"))


def read_window(
    stream: IO[bytes], loop: asyncio.AbstractEventLoop, picker: ChannelPicker, stop: Callable[[], None]
) -> None:
    """The host process's stdin reader (a daemon thread): answers to the picker, then the end."""

    def run() -> None:
        with contextlib.suppress(OSError, ValueError):
            while line := stream.readline(MAX_LINE):
                loop.call_soon_threadsafe(picker.hear, line)
        loop.call_soon_threadsafe(picker.window_gone)
        loop.call_soon_threadsafe(stop)

    threading.Thread(target=run, name="harnessdesk-window-link", daemon=True).start()


async def loopback_site(runtime: Any, webui: str, port: int) -> tuple[Any, str]:
    """`--serve` for the window: the loopback site on this host's app (started), and its URL."""
    from pathlib import Path

    from host.server.binding import bind_socket, load_or_mint_token
    from host.server.run import LoopbackServer
    from host.server.site import build_site

    sock = bind_socket("127.0.0.1", port)
    token = load_or_mint_token(None)
    site = build_site(runtime.app, Path(webui), token=token, peers=runtime.peers)
    server = LoopbackServer(site, sock)
    ready = asyncio.Event()
    task = asyncio.create_task(server.serve(on_ready=ready.set))
    await asyncio.wait_for(ready.wait(), 10)
    server._harnessdesk_task = task  # type: ignore[attr-defined]  # kept alive with the server
    return server, f"http://127.0.0.1:{server.port}/?token={token}"


class WindowSide:
    """The window's end: answers the host's `pick` questions with the window's own picker
    (run on the window's small loop), closes the dialog on `unpick`."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        pick: Callable[[str | None], Any],
        write: Callable[[str], None],
    ) -> None:
        self._loop = loop
        self._pick = pick
        self._write = write
        self._open: dict[int, Future[str | None]] = {}
        self._lock = threading.Lock()

    def hear(self, message: dict[str, Any]) -> None:
        kind = message.get("harnessdesk")
        try:
            ask_id = int(message["id"])
        except (KeyError, TypeError, ValueError):
            return
        if kind == "pick":
            file = message.get("file")
            future = asyncio.run_coroutine_threadsafe(
                self._pick(file if isinstance(file, str) else None), self._loop
            )
            with self._lock:
                self._open[ask_id] = future
            future.add_done_callback(lambda done: self._answer(ask_id, done))
        elif kind == "unpick":
            with self._lock:
                asked = self._open.get(ask_id)
            if asked is not None:
                asked.cancel()

    def _answer(self, ask_id: int, done: Future[str | None]) -> None:
        with self._lock:
            self._open.pop(ask_id, None)
        if done.cancelled():
            reply: dict[str, Any] = {"id": ask_id, "path": None}
        elif (error := done.exception()) is not None:
            reply = {"id": ask_id, "error": str(error) or type(error).__name__}
        else:
            reply = {"id": ask_id, "path": done.result()}
        with contextlib.suppress(OSError, ValueError):
            self._write(json.dumps(reply))

    def cancel_all(self) -> None:
        with self._lock:
            futures = list(self._open.values())
        for future in futures:
            future.cancel()
