"""A 10,000-message session in the browser (Chromium) and in the window (WebKitGTK), against a
120-message session measured in the same run (issue 33, goal 2).

    .venv/bin/python bench/transcript_bench.py [--messages 10000] [--rounds 3] [--burners 2]
                                               [--only chromium|window]

Both sessions are written into the store directly (tests/support/long_session.py), then the real
`harnessdesk serve` (Chromium through Playwright) or the real app window (pywebview/WebKitGTK
under Xvfb, driven over its automation socket) opens them. Per engine and session: the first
screen painted after the click, a jump to a search hit (an early message of the long session),
scrolling's frame cost p50/p99 (bench/transcript_probe.py; the frames of the round's two scroll
passes pooled, twice SCROLL_FRAMES, so that p99 is a percentile and not the round's one slowest
frame) and the most DOM nodes seen. The goals:
open ≤ 500 ms, jump ≤ 300 ms, frame p99 ≤ 16 ms, DOM nodes about the small session's. Medians of
`rounds`, the two sessions alternating; the goals are judged on the rounds. The window's rounds
are run again with `--burners` busy-loop processes (bench/load.py) the bench starts and stops
itself: scroll p99 in the window on a busy machine (issue 48).

The window and its Xvfb start in a session of their own, as a desktop starts an app and its
display server; the burners stay in this process's session. With autogrouping (Linux's default)
the scheduler shares the CPU between sessions first, so a window in the burners' session got a
fraction of what it gets on a person's busy machine (docs/decisions/window-keystrokes.md, the
same fix for the keystroke, working-day and pixel benches). `--shared-session` starts them beside
the burners as this bench did before, for a side-by-side run.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import transcript_probe as probe  # noqa: E402
from bench.load import Burners, load_now  # noqa: E402
from tests.support.long_session import MARKER, LongSession, seed_long_session  # noqa: E402

SMALL = 120
SCROLL_FRAMES = 150
SCROLL_STEP = -120
GOALS = {"open_ms": 500.0, "jump_ms": 300.0, "frame_p99_ms": 16.0}

Evaluate = Callable[[str], Any]


def percentile(values: list[float], p: float) -> float:
    """Nearest rank: the smallest value with at least p % of `values` at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def seed(data_dir: Path, messages: int) -> tuple[LongSession, LongSession]:
    big = seed_long_session(data_dir, "long", messages, marked_turn=3)
    small = seed_long_session(data_dir, "short", SMALL, marked_turn=3)
    return big, small


def wait_listed(evaluate: Evaluate, sids: list[str]) -> None:
    probe_js = " && ".join(
        f"document.querySelector('[data-testid=session-item][data-session-id=\"{s}\"]')" for s in sids
    )
    evaluate(f"new Promise((r) => {{ const t = () => ({probe_js}) ? r(true) : setTimeout(t, 20); t(); }})")


def one_round(evaluate: Evaluate, session: LongSession, other: LongSession) -> dict[str, float]:
    """Open `session` (from `other`), jump to its marker, scroll up from the hit and from the tail."""
    evaluate(probe.open_session(other.session_id))
    opened = evaluate(probe.open_session(session.session_id))
    tail_scroll = evaluate(probe.scroll(SCROLL_FRAMES, SCROLL_STEP))
    evaluate(probe.open_session(other.session_id))
    jump = evaluate(probe.jump_to_hit(session.session_id, MARKER))
    assert jump["inView"] and MARKER in jump["text"] and jump["seq"] == session.marker_seq, jump
    down = evaluate(probe.scroll(SCROLL_FRAMES, -SCROLL_STEP))
    return {
        "open_ms": opened["ms"],
        "jump_ms": jump["ms"],
        "frame_p50_ms": percentile(tail_scroll["costs"] + down["costs"], 50),
        "frame_p99_ms": percentile(tail_scroll["costs"] + down["costs"], 99),
        "nodes": max(opened["nodes"], jump["nodes"], tail_scroll["nodes"], down["nodes"]),
        "rows": max(tail_scroll["rows"], down["rows"]),
    }


def measure(evaluate: Evaluate, big: LongSession, small: LongSession, rounds: int) -> dict[str, Any]:
    """Medians per session of `rounds` rounds, and the rounds themselves (the goals' runs)."""
    wait_listed(evaluate, [big.session_id, small.session_id])
    one_round(evaluate, small, big)  # warm-up: code paths compiled, caches filled
    samples: dict[str, list[dict[str, float]]] = {"small": [], "big": []}
    for _ in range(rounds):
        samples["small"].append(one_round(evaluate, small, big))
        samples["big"].append(one_round(evaluate, big, small))
    medians = {
        name: {k: statistics.median(r[k] for r in runs) for k in runs[0]} for name, runs in samples.items()
    }
    return {**medians, "rounds": samples}


def chromium(
    data_dir: Path, big: LongSession, small: LongSession, rounds: int, burners: int
) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, HarnessServer, open_app

    server = HarnessServer(
        data_dir.parent,
        ["--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1", "--model", "none"],
    )
    server.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=VIEWPORT)
            open_app(page, server.url)
            result = measure(lambda e: page.evaluate(e), big, small, rounds)
            browser.close()
    finally:
        server.stop()
    return result


def window(
    data_dir: Path, big: LongSession, small: LongSession, rounds: int, burners: int, own: bool = True
) -> dict[str, Any]:
    """The window's figures; with `burners`, the same rounds again under that many CPU burners
    (under "loaded"): the issue 48 figure, scroll p99 in the window on a busy machine. `own`: the
    window and its Xvfb in a session of their own (not the burners')."""
    from tests.desktop import driver, x11

    xvfb, display = x11.start_xvfb(own_session=own)
    sock = data_dir.parent / "window.sock"
    args = [
        "-m",
        "tests.desktop.launch",
        "--webui",
        str(ROOT / "webui"),
        "--real-host",
        "--data-dir",
        str(data_dir),
        "--provider",
        "openai-compatible",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "none",
    ]
    env = {**os.environ, **driver.window_env(display, sock)}
    app = subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=own,
    )
    try:
        connected = "document.documentElement.dataset.connection === 'connected'"
        ready = f"new Promise(r => {{ const t = () => {connected} ? r(true) : setTimeout(t, 20); t(); }})"
        page = driver.connect_ready(sock, ready, timeout=90)
        result = measure(lambda e: page.evaluate(e, timeout=120), big, small, rounds)
        if burners:
            with Burners(burners):
                before = load_now()
                loaded = measure(lambda e: page.evaluate(e, timeout=240), big, small, rounds)
                loaded["load"] = {"burners": burners, "before": before, "after": load_now()}
            result["loaded"] = loaded
        return result
    finally:
        app.terminate()
        app.wait(30)
        xvfb.terminate()
        xvfb.wait(10)


def report(engine: str, result: dict[str, Any], messages: int) -> None:
    small, big = result["small"], result["big"]
    print(f"{engine}: {messages:,} messages against {SMALL} (medians)")
    print(f"{'':22}{f'{SMALL} msgs':>12}{f'{messages:,} msgs':>14}{'ratio':>8}{'goal':>10}")
    for key, label in (
        ("open_ms", "open, painted (ms)"),
        ("jump_ms", "jump to hit (ms)"),
        ("frame_p50_ms", "scroll frame p50 (ms)"),
        ("frame_p99_ms", "scroll frame p99 (ms)"),
        ("nodes", "DOM nodes (most)"),
        ("rows", "rows in the DOM"),
    ):
        goal = GOALS.get(key)
        mark = f"≤ {goal:.0f}" + (" ok" if big[key] <= goal else " MISS") if goal else ""
        ratio = big[key] / small[key] if small[key] else float("nan")
        print(f"{label:22}{small[key]:12.1f}{big[key]:14.1f}{ratio:8.2f}{mark:>10}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("chromium", "window"))
    parser.add_argument("--burners", type=int, default=2, help="CPU burners for the window's loaded rounds")
    parser.add_argument(
        "--shared-session",
        action="store_true",
        help="the window and its Xvfb in this process's session, beside the burners (as before)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    figures: dict[str, Any] = {"messages": args.messages}
    started = time.monotonic()
    own = not args.shared_session
    engines: dict[str, Callable[..., dict[str, Any]]] = {
        "chromium": chromium,
        "window": functools.partial(window, own=own),
    }
    for name, run in engines.items():
        if args.only and name != args.only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            data_dir = Path(tmp) / "data"
            big, small = seed(data_dir, args.messages)
            result = run(data_dir, big, small, args.rounds, args.burners)
        report(name, result, big.messages)
        if "loaded" in result:
            loaded = result.pop("loaded")
            report(f"{name}, {args.burners} CPU burners", loaded, big.messages)
            figures[f"{name}_loaded"] = loaded
        figures[name] = result
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(f"({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
