"""Stream output from the host to the page, batched: many frames per push, at most one push
per 4 ms and 256 KiB (docs/architecture.md, "The desktop fetch bridge"; docs/decisions.md), and
with a window that can start a push without waiting for it, up to `DEPTH` pushes on their way at
once (docs/decisions/bridge-pushes-pipelined.md).

Wire format of one push, a single `window.run_js` call:
    window.harnessdeskBridge._push([[id, "t", text], [id, "b", base64], [id, "e"], [id, "x", msg]])
`t` text (UTF-8 decoded on our side), `b` bytes as base64, `e` end of stream, `x` error.
Consecutive chunks of one stream in a batch are merged into one entry.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("desktop.bridge")

PUSH_INTERVAL = 0.004
"""Minimum gap between two pushes. Output that arrives while the pushes on their way are at
their limit batches itself; the gap only caps the page at ~250 pushes/s under a flood.
(It was 16 ms: a lone chunk then waited up to 16 ms behind the previous one, p50 ~12 ms.)"""
PUSH_MAX_BYTES = 256 * 1024
"""Cap per push: a 20,000-frame burst (~7 MB) goes in ~30 pushes instead of ~110."""
DEPTH = 4
"""Pushes started and not yet run by the page, at most (with `start_js`). A push's round trip
through the GUI loop and the web process is many times the gap between two deltas; waiting for
each one held the next delta that long (docs/decisions/bridge-pushes-pipelined.md)."""
STALL_BOUND = 10.0
"""Seconds a push may stay unanswered before its place is given back (a page that never answers
must not stop the stream's later pushes for good)."""

StartJs = Callable[[str, Callable[[], None]], None]
"""Starts `script` in the page and returns at once; calls `done` (from any thread) once the page
ran it. The order of starts is the order the page runs them in."""


class Pusher:
    """Sends stream output to the page in batches from its own thread (`run_js` blocks).

    Leading-edge throttle: a lone chunk goes out at once; under load, one push per `interval`
    or as soon as `max_bytes` wait. While the pushes in flight are at their limit (one with a
    blocking `run_js`, `DEPTH` with `start_js`), output accumulates, so a slow page gets fewer,
    larger pushes rather than a growing queue of small ones.
    """

    def __init__(
        self,
        run_js: Callable[[str], object],
        *,
        interval: float = PUSH_INTERVAL,
        max_bytes: int = PUSH_MAX_BYTES,
        start_js: StartJs | None = None,
    ) -> None:
        """`run_js` blocks until the page ran the script; `start_js`, when the window has one,
        replaces it (up to `DEPTH` pushes on their way)."""
        self._run_js = run_js
        self._start_js = start_js
        self._depth = DEPTH if start_js is not None else 1
        self._interval = interval
        self._max_bytes = max_bytes
        self._cond = threading.Condition()
        self._items: list[tuple[str, str, str | bytes]] = []
        self._bytes = 0
        self._last = 0.0
        self._closed = False
        self._flying: dict[int, float] = {}
        """Pushes started and not yet run by the page: number → when started (monotonic)."""
        self._numbered = 0
        self.pushes = 0
        self.on_push: Callable[[], object] = lambda: None
        self._thread = threading.Thread(target=self._loop, name="harnessdesk-pusher", daemon=True)
        self._thread.start()

    @property
    def pending_bytes(self) -> int:
        return self._bytes

    def put(self, stream_id: str, kind: str, data: str | bytes = "") -> None:
        """Queue `t` (text), `b` (bytes), `e` (end) or `x` (error message) for a stream."""
        with self._cond:
            if self._closed:
                return
            self._items.append((stream_id, kind, data))
            self._bytes += len(data)
            self._cond.notify()

    def close(self) -> None:
        """Stop pushing at once (the page is going away); queued output is dropped."""
        with self._cond:
            self._closed = True
            self._items.clear()
            self._cond.notify()

    def _take(self) -> list[tuple[str, str, str | bytes]] | None:
        with self._cond:
            while not self._closed and (not self._items or not self._room()):
                self._cond.wait(STALL_BOUND if self._flying else None)
            while not self._closed:
                wait = self._last + self._interval - time.monotonic()
                if wait <= 0 or self._bytes >= self._max_bytes:
                    break
                self._cond.wait(wait)
            if self._closed:
                return None
            size, count = 0, 0
            for _, _, data in self._items:
                count += 1
                size += len(data)
                if size >= self._max_bytes:
                    break
            batch, self._items = self._items[:count], self._items[count:]
            self._bytes -= size
            self._last = time.monotonic()
            return batch

    def _room(self) -> bool:
        """Whether another push may start (drops a push unanswered past `STALL_BOUND`)."""
        if len(self._flying) < self._depth:
            return True
        stale = time.monotonic() - STALL_BOUND
        for number, started in list(self._flying.items()):
            if started < stale:
                log.warning("a bridge push was not answered in %s s", STALL_BOUND)
                del self._flying[number]
        return len(self._flying) < self._depth

    def _landed(self, number: int) -> None:
        """A push ran in the page (or failed): its place is free. Called on the pusher's thread
        or, with `start_js`, on the window's GUI thread, where nothing may escape."""
        with self._cond:
            self._flying.pop(number, None)
            self._cond.notify()
        try:
            self.on_push()
        except Exception:  # the host's loop already closed (the window is going away)
            log.debug("on_push failed", exc_info=True)

    def _loop(self) -> None:
        while (batch := self._take()) is not None:
            script = f"window.harnessdeskBridge._push({json.dumps(merge(batch))})"
            with self._cond:
                self._numbered += 1
                number = self._numbered
                self._flying[number] = time.monotonic()
            self.pushes += 1
            try:
                if self._start_js is not None:
                    self._start_js(script, functools.partial(self._landed, number))
                    continue
                self._run_js(script)
            except Exception:
                log.exception("bridge push failed")
            self._landed(number)


def merge(batch: list[tuple[str, str, str | bytes]]) -> list[list[str]]:
    """One entry per run of same-kind chunks of a stream; bytes become base64 here."""
    out: list[list[Any]] = []
    last: dict[str, int] = {}
    for stream_id, kind, data in batch:
        at = last.get(stream_id)
        if at is not None and kind in "tb" and out[at][1] == kind:
            out[at][2] += data
            continue
        last[stream_id] = len(out)
        out.append([stream_id, kind, data] if kind != "e" else [stream_id, kind])
    for entry in out:
        if entry[1] == "b":
            entry[2] = base64.b64encode(entry[2]).decode("ascii")
    return out
