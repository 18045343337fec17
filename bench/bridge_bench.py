"""Desktop bridge throughput and latency, against a baseline measured in the same run.

    python bench/bridge_bench.py [--flood 20000] [--paced 400] [--rounds 9]

Bridge: the real app (`tests.desktop.launch`, the test host) in a WebKitGTK window under Xvfb;
the page reads SSE through `harnessdeskBridge.fetch`. Baseline: the same WebKitGTK, a plain
pywebview window whose page reads the same SSE route with `fetch` from loopback uvicorn.
Both windows stay open and `--rounds` rounds alternate them (which goes first alternates too;
nine rounds, as with three the median's interval was the whole range): a flood (events/s, and how many
reads the page needed: pushes are batched) and a paced stream (each event's delay, p50/p99).
A delay is measured in one clock per side: the host's send times (`time.time()`) against the
stream's first event's, the page's receive times (`performance.now()`) against its first
event's; an event's delay is how much later it arrived than the stream's fastest event did,
relative to their send times. Comparing the host's clock with the page's directly printed
negative latencies (-0.2 ms: `Date.now()` is whole milliseconds and the two processes' clocks
are not one); this figure is never negative, and is the queueing the path adds, not the one-way
time of the fastest event. Prints figures and bridge/baseline ratios (the flood ratio's runs are
the rounds); no assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.desktop import driver, x11  # noqa: E402
from tests.support.ports import free_port  # noqa: E402

MEASURE = """
(async (url, viaBridge) => {
  const fetchFn = viaBridge ? window.harnessdeskBridge.fetch : window.fetch.bind(window);
  const t0 = performance.now();
  const response = await fetchFn(url);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const sent = [], got = [];
  let buffer = "", reads = 0;
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    reads++;
    buffer += decoder.decode(value, {stream: true});
    let cut;
    while ((cut = buffer.indexOf("\\n\\n")) >= 0) {
      const block = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
      if (!block.startsWith("data: ")) continue;
      got.push(performance.now());
      sent.push(JSON.parse(block.slice(6)).t);
    }
  }
  const secs = (performance.now() - t0) / 1000;
  // One clock per side: the host's send times against each other, the page's receive times
  // against each other; an event's delay is how much later than the stream's fastest event it
  // arrived, relative to when it was sent (never negative; no clock is compared across processes).
  const rel = got.map((g, i) => (g - got[0]) - (sent[i] - sent[0]));
  const least = Math.min(...rel);
  const lat = rel.map((x) => x - least).sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  return {events: lat.length, reads, secs, rate: lat.length / secs, p50: q(0.5), p99: q(0.99)};
})
"""


def run_case(page: driver.Page, url: str, via_bridge: bool) -> dict[str, float]:
    return dict(page.evaluate(f"{MEASURE}({url!r}, {str(via_bridge).lower()})", timeout=300))


def baseline_server(port: int, data_dir: Path) -> threading.Thread:
    """uvicorn on loopback: the test host's routes plus the test page, same origin."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    from tests.desktop.hostapp import build_app

    api = build_app(data_dir)
    site = Starlette(
        routes=[*api.routes, Mount("/", StaticFiles(directory=ROOT / "tests/desktop/page", html=True))]
    )
    config = uvicorn.Config(site, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    return thread


def baseline_window(url: str) -> None:
    """Child mode: a plain pywebview GTK window on `url` (no bridge), driven like the app's."""
    driver.plain_window("baseline", url)


def launch(display: str, args: list[str], sock: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, **driver.window_env(display, sock)}
    return subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def measure(display: str, flood: int, paced: int, rounds: int, tmp: Path) -> dict[str, Any]:
    flood_q, paced_q = f"?n={flood}&pause=0", f"?n={paced}&pause=0.005"
    # the bridge: the real app with the test host
    sock = tmp / "bridge.sock"
    app = launch(display, ["-m", "tests.desktop.launch", "--data-dir", str(tmp / "bridge")], sock)
    child = None
    try:
        bridge = driver.connect_ready(sock, timeout=60)
        # the baseline: same engine, loopback uvicorn, plain fetch
        port, sock = free_port(), tmp / "baseline.sock"
        (tmp / "baseline").mkdir()
        baseline_server(port, tmp / "baseline")
        url = f"http://127.0.0.1:{port}/index.html"
        child = launch(display, [__file__, "--baseline-window", url], sock)
        loaded = "new Promise(r => { const t = () => location.protocol === 'http:' && "
        loaded += "document.readyState === 'complete' ? r(true) : setTimeout(t, 20); t(); })"
        base = driver.connect_ready(sock, loaded, url_prefix="http://127.0.0.1", timeout=60)
        run_case(bridge, "/api/events.bench?n=200&pause=0", True)  # warm-up
        run_case(base, "/api/events.bench?n=200&pause=0", False)
        out: list[dict[str, dict[str, dict[str, float]]]] = []
        for i in range(rounds):
            one: dict[str, dict[str, dict[str, float]]] = {"bridge": {}, "baseline": {}}
            for kind in ("flood", "paced"):
                query = flood_q if kind == "flood" else paced_q
                for side in ("bridge", "baseline") if i % 2 == 0 else ("baseline", "bridge"):
                    page, via_bridge = (bridge, True) if side == "bridge" else (base, False)
                    one[side][kind] = run_case(page, "/api/events.bench" + query, via_bridge)
            out.append(one)
    finally:
        for proc in (app, child):
            if proc is not None:
                proc.terminate()
                proc.wait(20)
    return {
        "rounds": [
            {**r, "flood_ratio": r["bridge"]["flood"]["rate"] / r["baseline"]["flood"]["rate"]} for r in out
        ]
    }


def report(figures: dict[str, Any]) -> None:
    rounds = figures["rounds"]

    def med(side: str, kind: str, key: str) -> float:
        return float(statistics.median(r[side][kind][key] for r in rounds))

    print(f"bridge against a plain fetch in the same engine, median of {len(rounds)} rounds")
    print(f"{'':34}{'bridge':>12}{'baseline':>12}{'ratio':>9}")

    def row(label: str, kind: str, key: str, fmt: str = "{:12.1f}") -> None:
        x, y = med("bridge", kind, key), med("baseline", kind, key)
        ratio = f"{x / y:9.2f}" if y > 0 else f"{'n/a':>9}"
        print(f"{label:34}{fmt.format(x)}{fmt.format(y)}{ratio}")

    row("flood events/s", "flood", "rate")
    row("flood page reads", "flood", "reads", "{:12.0f}")
    row("paced events/s", "paced", "rate")
    row("paced delay over fastest p50 (ms)", "paced", "p50", "{:12.2f}")
    row("paced delay over fastest p99 (ms)", "paced", "p99", "{:12.2f}")
    row("flood delay over fastest p99 (ms)", "flood", "p99")
    ratios = [r["flood_ratio"] for r in rounds]
    print(f"flood ratio per round: {', '.join(f'{r:.2f}' for r in ratios)} (goal ≥ 0.9)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flood", type=int, default=20000, help="events in the flood run")
    parser.add_argument("--paced", type=int, default=400, help="events in the paced run (5 ms apart)")
    parser.add_argument("--rounds", type=int, default=9, help="rounds alternating the two windows")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--baseline-window", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline_window:
        baseline_window(args.baseline_window)
        return 0
    xvfb, display = x11.start_xvfb()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.monotonic()
            figures = measure(display, args.flood, args.paced, args.rounds, Path(tmp))
            report(figures)
            if args.json:
                figures["flood_ratio"] = statistics.median(r["flood_ratio"] for r in figures["rounds"])
                args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
            print(f"({time.monotonic() - started:.1f} s, display {display})")
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
