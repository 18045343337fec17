"""In-page probes for the transcript benchmarks, shared by Chromium (Playwright) and the window
(WebKitGTK through tests/desktop/driver.py): each is one JS expression whose promise resolves to
the figures, timed with the page's own clock so the driver's round trips do not count.

"Painted" = the rows are in the DOM and a frame has run after them (a rAF, then a task after
the frame's rendering). A scroll frame's cost = from its rAF (where the scroll is set) to the
first task after that frame's rendering: the script, the observers, style, layout and paint of
the frame; p99 of it is compared against the 16 ms frame budget.
"""

from __future__ import annotations

import json

PAINTED = "new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))"

_OPEN = """
(async (sid) => {
  const app = window.harnessdesk.app;
  const log = document.querySelector('[data-testid=conversation]');
  const item = `[data-testid=session-item][data-session-id="${sid}"]`;
  const button = document.querySelector(`${item} [data-testid=session-open]`);
  if (!button) throw new Error("no session item for " + sid);
  const t0 = performance.now();
  button.click();
  await new Promise((resolve) => {
    const check = () => {
      const s = app.manager.active;
      if (s?.sessionId === sid && s.loaded && !s.loading && log.querySelector('.rows > .row')) resolve();
      else requestAnimationFrame(check);
    };
    check();
  });
  await PAINTED;
  return {ms: performance.now() - t0, nodes: document.getElementsByTagName('*').length,
          rows: log.querySelectorAll('.rows > .row').length};
})
""".replace("PAINTED", PAINTED)

_SEARCH = """
(async (sid, word) => {
  const input = document.querySelector('[data-testid=search-input]');
  input.value = word;
  input.dispatchEvent(new Event('input', {bubbles: true}));
  const pick = () => document.querySelector(`[data-testid=search-result][data-session-id="${sid}"]`);
  await new Promise((resolve) => { const t = () => (pick() ? resolve() : setTimeout(t, 10)); t(); });
  const t0 = performance.now();
  pick().click();
  await new Promise((resolve) => {
    const hit = () => document.querySelector('[data-search-hit=true]');
    const check = () => (hit() ? resolve() : requestAnimationFrame(check));
    check();
  });
  await PAINTED;
  const hit = document.querySelector('[data-search-hit=true]');
  const log = document.querySelector('[data-testid=conversation]').getBoundingClientRect();
  const box = hit.getBoundingClientRect();
  return {ms: performance.now() - t0, text: hit.textContent, seq: Number(hit.dataset.seq),
          inView: box.bottom > log.top && box.top < log.bottom,
          nodes: document.getElementsByTagName('*').length};
})
""".replace("PAINTED", PAINTED)

_SCROLL = """
(async (frames, step) => {
  const log = document.querySelector('[data-testid=conversation]');
  const costs = [];
  let nodes = 0;
  const channel = new MessageChannel();
  for (let i = 0; i < frames; i++) {
    const cost = await new Promise((resolve) => {
      requestAnimationFrame(() => {
        const t0 = performance.now();
        log.scrollTop = Math.max(0, log.scrollTop + step);
        channel.port1.onmessage = () => resolve(performance.now() - t0);
        channel.port2.postMessage(0);
      });
    });
    costs.push(cost);
    nodes = Math.max(nodes, document.getElementsByTagName('*').length);
  }
  costs.sort((a, b) => a - b);
  const q = (p) => costs[Math.min(costs.length - 1, Math.floor(p * costs.length))];
  return {frames, p50: q(0.5), p99: q(0.99), max: costs[costs.length - 1], costs, nodes,
          rows: log.querySelectorAll('.rows > .row').length,
          firstSeq: window.harnessdesk.app.manager.active?.firstSeq ?? null};
})
"""

NODES = "document.getElementsByTagName('*').length"


def open_session(sid: str) -> str:
    """Click the session in the sidebar; ms until its first screen is painted."""
    return f"{_OPEN}({json.dumps(sid)})"


def jump_to_hit(sid: str, word: str) -> str:
    """Search for `word`, click the session's hit; ms until the marked row is painted."""
    return f"{_SEARCH}({json.dumps(sid)}, {json.dumps(word)})"


def scroll(frames: int, step: int) -> str:
    """Scroll the log by `step` px per frame for `frames` frames; the frames' cost p50/p99 (of
    fewer than 100 frames, "p99" is the slowest one: pool several passes' `costs` for a p99)."""
    return f"{_SCROLL}({frames}, {step})"
