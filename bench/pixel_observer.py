"""Token to pixel, the parts bench/pixel_bench.py (Chromium) and bench/window_day_bench.py (the
window) share: the page's MutationObserver that notes when each stamp first shows in the
assistant's text, and the baseline of the same run (this process reading the provider directly).

The scripted provider (tests/support/scripted_llm.py) writes each delta as `<ns>`: the wall-clock
time it was written. The observer reads `performance.timeOrigin + performance.now()`, the same
wall clock, so a stamp's latency is the difference.
"""

from __future__ import annotations

import re
import time

import httpx

from tests.support.scripted_llm import Reply, ScriptedLlmServer

STAMP = re.compile(rb"<(\d{19})>")

OBSERVER = """(() => {
  const seen = new Map();
  window.__pixel = seen;
  const scan = () => {
    const now = (performance.timeOrigin + performance.now()) * 1e6;
    const nodes = document.querySelectorAll('[data-testid="assistant-text"]');
    const text = nodes.length ? nodes[nodes.length - 1].textContent : "";
    for (const m of text.matchAll(/<(\\d{19})>/g)) if (!seen.has(m[1])) seen.set(m[1], now);
  };
  window.__pixelObserver?.disconnect();
  window.__pixelObserver = new MutationObserver(scan);
  window.__pixelObserver.observe(document.body, {subtree: true, childList: true, characterData: true});
  return true;
})()"""
"""One JS expression: installs the observer (replacing an earlier one); `window.__pixel` maps
each stamp to the time (ns) it was first in the DOM."""

UNOBSERVE = """(() => {
  window.__pixelObserver?.disconnect();
  window.__pixelFrameObserver?.disconnect();
  for (const name of ["__pixelObserver", "__pixel", "__pixelFrameObserver", "__pixelFrame"]) {
    delete window[name];
  }
  return true;
})()"""
"""One JS expression: takes OBSERVER and FRAME_OBSERVER out again, with what they noted (a bench
that goes on measuring the page afterwards must not measure their scans and maps)."""

READ_HOOK = """(() => {
  const arrived = new Map();
  window.__arrived = arrived;
  const decoder = new TextDecoder();
  const read = ReadableStreamDefaultReader.prototype.read;
  ReadableStreamDefaultReader.prototype.read = function () {
    return read.call(this).then((r) => {
      const now = (performance.timeOrigin + performance.now()) * 1e6;
      if (r.value instanceof Uint8Array) {
        const text = decoder.decode(r.value);
        for (const m of text.matchAll(/<(\\d{19})>/g)) if (!arrived.has(m[1])) arrived.set(m[1], now);
      }
      return r;
    });
  };
})()"""
"""An init script (before the app's own): `window.__arrived` maps each stamp to the time (ns) the
page's fetch reader got the bytes holding it: the page's own share is from there to the DOM."""

ARRIVED = "[...window.__arrived.entries()]"

FRAME_OBSERVER = """(() => {
  const framed = new Map();
  window.__pixelFrame = framed;
  let waiting = [];
  let asked = 0;
  const scan = () => {
    const nodes = document.querySelectorAll('[data-testid="assistant-text"]');
    const text = nodes.length ? nodes[nodes.length - 1].textContent : "";
    for (const m of text.matchAll(/<(\\d{19})>/g)) {
      if (framed.has(m[1]) || waiting.includes(m[1])) continue;
      waiting.push(m[1]);
    }
    if (waiting.length && !asked) asked = requestAnimationFrame(() => {
      const now = (performance.timeOrigin + performance.now()) * 1e6;
      for (const s of waiting) framed.set(s, now);
      waiting = [];
      asked = 0;
    });
  };
  window.__pixelFrameObserver?.disconnect();
  window.__pixelFrameObserver = new MutationObserver(scan);
  window.__pixelFrameObserver.observe(document.body, {subtree: true, childList: true, characterData: true});
  return true;
})()"""
"""Beside OBSERVER, not judged: `window.__pixelFrame` maps each stamp to the animation frame that
follows its first time in the DOM. That frame's style, layout and paint come after its callbacks,
so a person sees the stamp no sooner than this (the goal rows keep the DOM time, in both engines:
docs/decisions/stepped-activity-pulses.md)."""

FRAMED = "[...window.__pixelFrame.entries()]"

SEEN = "[...window.__pixel.entries()]"
"""The observer's findings as [stamp, ns] pairs."""


def latencies(seen: dict[str, float]) -> list[float]:
    """ms from each stamp's write to its first time in the DOM."""
    return [(at - int(stamp)) / 1e6 for stamp, at in seen.items()]


def page_share(seen: dict[str, float], arrived: dict[str, float]) -> list[float]:
    """ms from the page reading each stamp's bytes to the stamp being in the DOM."""
    return [(at - arrived[stamp]) / 1e6 for stamp, at in seen.items() if stamp in arrived]


def raw_run(llm: ScriptedLlmServer, tokens: int, rate: float, model: str) -> list[float]:
    """This process reads the provider's paced stream; ms from each stamp to its arrival."""
    llm.enqueue(Reply(stamps=tokens, delay=1 / rate))
    body = {"model": model, "stream": True, "messages": [{"role": "user", "content": "stamps"}]}
    out: list[float] = []
    with httpx.Client(timeout=60, trust_env=False) as http:
        with http.stream("POST", f"{llm.base_url}/chat/completions", json=body) as response:
            for chunk in response.iter_bytes():
                now = time.time_ns()
                out += [(now - int(m.group(1))) / 1e6 for m in STAMP.finditer(chunk)]
    return out
