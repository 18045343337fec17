"""Token to pixel: from the provider writing a delta to its text being in the page's DOM.

    python bench/pixel_bench.py [--tokens 300] [--rate 100] [--runs 9] [--json FILE]

The scripted OpenAI-compatible provider (tests/support/scripted_llm.py) streams `--tokens` text
deltas at `--rate` per second, each `<ns>`: the wall-clock time it was written (`stamps`).
`harnessdesk serve` (a subprocess) runs the turn; headless Chromium (Playwright) shows the app, and
a MutationObserver in the page (bench/pixel_observer.py, shared with the window's bench) notes,
for each stamp, when it first appears in the assistant's text (`performance.timeOrigin +
performance.now()`: the same wall clock). The baseline, measured
in the same run on the same provider and pace, is this process reading the provider's stream
directly (the floor: the provider's own write and loopback); alongside the page, this process
also reads the host's `events.mux` (what the host adds without the browser), and the page notes
when its fetch reader got each stamp's bytes (the page's own share: bytes to DOM). Prints p50 / p99
in ms of each; the goals are p50 ≤ 10 ms and p99 ≤ 30 ms in the page, judged on the runs' own
p50 and p99 (their median and spread). Nine runs by default: with five, the median's interval is
the whole range, and a run's p99 (its third-slowest token of 300) let one run decide the verdict
(docs/decisions/baseline-on-both-sides.md). No assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

from bench.pixel_observer import (  # noqa: E402
    ARRIVED,
    OBSERVER,
    READ_HOOK,
    SEEN,
    STAMP,
    latencies,
    page_share,
    raw_run,
)
from tests.browser.support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    MODEL,
    VIEWPORT,
    HarnessServer,
    fresh_session,
    open_app,
    openai_args,
    send,
)
from tests.support.scripted_llm import Reply, ScriptedLlmServer  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def figures(latencies_ms: list[float]) -> dict[str, float]:
    return {
        "p50": percentile(latencies_ms, 50),
        "p99": percentile(latencies_ms, 99),
        "max": max(latencies_ms),
        "n": len(latencies_ms),
    }


class SseReader(threading.Thread):
    """The host's `events.mux` read over loopback SSE in this process while the page runs the
    turn: ms from each stamp to its frame here (what the host adds, without the browser)."""

    def __init__(self, url: str, tokens: int) -> None:
        super().__init__(daemon=True)
        base, _, token = url.partition("/?token=")
        self.base, self.token, self.tokens = base, token, tokens
        self.latencies: list[float] = []
        self.ready = threading.Event()

    def run(self) -> None:
        headers = {"authorization": f"Bearer {self.token}", "accept": "text/event-stream"}
        with httpx.Client(timeout=120, trust_env=False, headers=headers) as http:
            with http.stream("GET", f"{self.base}/api/events.mux") as response:
                self.ready.set()
                seen: set[bytes] = set()
                for chunk in response.iter_bytes():
                    now = time.time_ns()
                    for m in STAMP.finditer(chunk):
                        if m.group(1) not in seen:  # a later frame (the whole message) repeats them
                            seen.add(m.group(1))
                            self.latencies.append((now - int(m.group(1))) / 1e6)
                    if len(seen) >= self.tokens:
                        return


def page_run(
    page: Page, llm: ScriptedLlmServer, url: str, tokens: int, rate: float
) -> tuple[list[float], list[float], list[float]]:
    """One turn in the app; ms from each stamp to its text in the DOM, to its SSE frame here, and
    from the page's fetch reader getting it to the DOM (the page's own share)."""
    fresh_session(page)
    page.evaluate(OBSERVER)
    reader = SseReader(url, tokens)
    reader.start()
    reader.ready.wait(30)
    llm.enqueue(Reply(stamps=tokens, delay=1 / rate))
    send(page, "stream stamps")
    expect(page.get_by_test_id("turn-end")).to_have_count(1, timeout=tokens / rate * 1000 + 60_000)
    reader.join(30)
    seen = dict(page.evaluate(SEEN))
    return latencies(seen), reader.latencies, page_share(seen, dict(page.evaluate(ARRIVED)))


def measure(tokens: int, rate: float, runs: int) -> dict[str, Any]:
    raw: list[float] = []
    dom: list[float] = []
    sse: list[float] = []
    own: list[float] = []
    missing = 0
    per_run: dict[str, list[dict[str, float]]] = {"raw": [], "dom": []}
    with tempfile.TemporaryDirectory(prefix="pixel-bench-") as tmp, ScriptedLlmServer() as llm:
        serve = HarnessServer(Path(tmp), openai_args(llm.base_url))
        url = serve.start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport=VIEWPORT)
                context.add_init_script(READ_HOOK)
                page = context.new_page()
                open_app(page, url)
                raw_run(llm, 20, rate, MODEL)  # warm both paths up
                page_run(page, llm, url, 20, rate)
                for _ in range(runs):  # interleaved: the machine's load hits both alike
                    raw_got = raw_run(llm, tokens, rate, MODEL)
                    raw += raw_got
                    got, frames, share = page_run(page, llm, url, tokens, rate)
                    per_run["raw"].append(figures(raw_got))
                    per_run["dom"].append(figures(got))
                    missing += tokens - len(got)
                    dom += got
                    sse += frames
                    own += share
                browser.close()
        finally:
            serve.stop()
    return {
        "tokens": tokens,
        "rate": rate,
        "runs": runs,
        "raw": figures(raw),
        "sse": figures(sse),
        "dom": figures(dom),
        "page": figures(own),
        "missing": missing,
        "per_run": per_run,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--rate", type=float, default=100.0, help="deltas per second")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = measure(args.tokens, args.rate, args.runs)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"token to pixel, {args.runs} x {args.tokens} deltas at {args.rate:g}/s (load {load})")
    print(f"{'reader':34}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'n':>7}")
    rows = (("provider → this process (baseline)", "raw"), ("provider → serve → SSE here", "sse"))
    dom_rows = (("provider → serve → Chromium DOM", "dom"), ("  of which: page's bytes → DOM", "page"))
    for label, key in (*rows, *dom_rows):
        row = result[key]
        print(f"{label:34}{row['p50']:9.2f}{row['p99']:9.2f}{row['max']:9.2f}{row['n']:7d}")
    print(f"stamps never seen in the page: {result['missing']} (goal: p50 ≤ 10 ms, p99 ≤ 30 ms)")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
