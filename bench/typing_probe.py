"""Keystroke → character painted in the composer: the parts bench/keystroke_bench.py (the window
and Chromium side by side) and bench/many_bench.py (typing while ten sessions stream) share.

Keys are real X key events: the XTEST extension's fake key press and release (what `xdotool type`
sends), from this process through libXtst, so the time each key was sent is known here to the
microsecond rather than hidden inside an `xdotool` process start (2-20 ms, more under load).
`xdotool type` itself is used to check that a typed phrase arrives whole and in order.

In the page, a hook on the composer's `input` events notes, for each new length of its text, when
the frame after it was painted: a `requestAnimationFrame`, then a message-channel task that runs
after that frame's rendering (bench/transcript_probe.py's "painted"). Times are the page's
`performance.timeOrigin + performance.now()`, a wall clock like this process's `time.time_ns()`;
the offset between the two is measured before typing (`calibrate`: the page's clock read through
the driver, the round trip halved; the tightest of several reads) and taken off, so latency =
paint (page clock, corrected) - send (this process's clock). The page's own share (the input
event's `timeStamp` to the paint, one clock) is reported beside it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.stats import percentile

HOOK = """(() => {
  const box = document.querySelector('[data-testid=composer-input]');
  if (!box) throw new Error("no composer");
  const log = [];
  window.__keys = log;
  window.__keysHook?.abort();
  const hook = new AbortController();
  window.__keysHook = hook;
  const channel = new MessageChannel();
  const pending = [];
  channel.port1.onmessage = () => {
    const at = performance.timeOrigin + performance.now();
    for (const [len, ev] of pending.splice(0)) log.push([len, ev, at]);
  };
  box.addEventListener("input", (e) => {
    pending.push([box.value.length, performance.timeOrigin + e.timeStamp]);
    requestAnimationFrame(() => channel.port2.postMessage(0));
  }, {signal: hook.signal});
  box.value = "";
  box.dispatchEvent(new Event("input", {bubbles: true}));
  box.focus();
  return document.activeElement === box;
})()"""
"""Installs the hook (replacing an earlier one), empties and focuses the composer."""

LOG = "window.__keys.slice()"
TEXT = "document.querySelector('[data-testid=composer-input]').value"
NOW = "performance.timeOrigin + performance.now()"


class XKeys:
    """XTEST key events on one X display, sent from this process."""

    def __init__(self, display: str) -> None:
        x11 = ctypes.util.find_library("X11")
        xtst = ctypes.util.find_library("Xtst")
        if x11 is None or xtst is None:
            raise RuntimeError("libX11 and libXtst are needed")
        self.x = ctypes.CDLL(x11)
        self.t = ctypes.CDLL(xtst)
        self.x.XOpenDisplay.restype = ctypes.c_void_p
        self.x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x.XStringToKeysym.restype = ctypes.c_ulong
        self.x.XStringToKeysym.argtypes = [ctypes.c_char_p]
        self.x.XKeysymToKeycode.restype = ctypes.c_ubyte
        self.x.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self.x.XFlush.argtypes = [ctypes.c_void_p]
        self.x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self.t.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
        self.dpy = self.x.XOpenDisplay(display.encode())
        if not self.dpy:
            raise RuntimeError(f"cannot open X display {display}")
        self.codes: dict[str, int] = {}

    def code(self, char: str) -> int:
        """The keycode of a lower-case letter or digit (no modifier needed)."""
        if char not in self.codes:
            self.codes[char] = int(self.x.XKeysymToKeycode(self.dpy, self.x.XStringToKeysym(char.encode())))
        return self.codes[char]

    def tap(self, char: str) -> int:
        """Press and release the key; the wall-clock ns just before the press left this process."""
        code = self.code(char)
        sent = time.time_ns()
        self.t.XTestFakeKeyEvent(self.dpy, code, 1, 0)
        self.t.XTestFakeKeyEvent(self.dpy, code, 0, 0)
        self.x.XFlush(self.dpy)
        return sent

    def close(self) -> None:
        if self.dpy:
            self.x.XCloseDisplay(self.dpy)
            self.dpy = None


Evaluate = Callable[[str], Any]


def calibrate(evaluate: Evaluate, reads: int = 15) -> dict[str, float]:
    """The page clock minus this process's clock (ms), from the read with the shortest round trip;
    `error_ms` is half that round trip (the offset is known to within it)."""
    best: tuple[float, float] | None = None
    for _ in range(reads):
        before = time.time_ns()
        page = float(evaluate(NOW))
        after = time.time_ns()
        rtt = (after - before) / 1e6
        offset = page - (before + after) / 2e6
        if best is None or rtt < best[0]:
            best = (rtt, offset)
    assert best is not None
    return {"offset_ms": best[1], "error_ms": best[0] / 2}


def type_keys(keys: XKeys, text: str, gap: float) -> list[int]:
    """Tap each character `gap` seconds apart; the send time of each (ns, this process's clock)."""
    sent = []
    next_at = time.monotonic()
    for char in text:
        sent.append(keys.tap(char))
        next_at += gap
        time.sleep(max(0.0, next_at - time.monotonic()))
    return sent


def wait_painted(evaluate: Evaluate, length: int, timeout: float) -> list[list[float]]:
    """The hook's log once the composer's text has `length` characters painted (or at timeout)."""
    deadline = time.monotonic() + timeout
    log: list[list[float]] = []
    while time.monotonic() < deadline:
        log = list(evaluate(LOG))
        if any(entry[0] >= length for entry in log):
            return log
        time.sleep(0.05)
    return log


def latencies(sent: list[int], log: list[list[float]], offset_ms: float) -> dict[str, Any]:
    """Per key: ms from its send to the first paint showing it (the page's clock corrected by
    `offset_ms`), and the page's own share (input event → paint); keys never painted counted."""
    total, page = [], []
    for k, at in enumerate(sent, start=1):
        shown = next((entry for entry in log if entry[0] >= k), None)
        if shown is None:
            continue
        total.append(shown[2] - offset_ms - at / 1e6)
        page.append(shown[2] - shown[1])
    return {"total": total, "page": page, "missing": len(sent) - len(total)}


def figures(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": float("nan"), "p99": float("nan"), "max": float("nan"), "n": 0}
    return {
        "p50": round(percentile(values, 50), 2),
        "p99": round(percentile(values, 99), 2),
        "max": round(max(values), 2),
        "n": len(values),
    }


def round_text(index: int, length: int) -> str:
    """Lower-case letters only (no modifier keys), different each round."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return "".join(letters[(index * 7 + i * 3) % 26] for i in range(length))


def median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")
