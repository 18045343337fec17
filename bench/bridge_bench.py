"""Desktop bridge throughput and latency, against a baseline measured in the same run.

    python bench/bridge_bench.py [--flood 20000] [--paced 400]

Bridge: the real app (`tests.desktop.launch`, the test host) in a WebKitGTK window under Xvfb;
the page reads SSE through `harnessdeskBridge.fetch`. Baseline: the same WebKitGTK, a plain
pywebview window whose page reads the same SSE route with `fetch` from loopback uvicorn.
Two runs each: a flood (events/s, and how many reads the page needed: pushes are batched) and
a paced stream (per-event latency from the host's send time to the page's parse, p50/p99).
Prints figures and bridge/baseline ratios; no assertions (timings vary by machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

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
  const lat = [];
  let buffer = "", reads = 0;
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    reads++;
    buffer += decoder.decode(value, {stream: true});
    let cut;
    while ((cut = buffer.indexOf("\\n\\n")) >= 0) {
      const block = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
      if (block.startsWith("data: ")) lat.push(Date.now() - JSON.parse(block.slice(6)).t);
    }
  }
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
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


def measure(display: str, flood: int, paced: int, tmp: Path) -> dict[str, dict[str, dict[str, float]]]:
    results: dict[str, dict[str, dict[str, float]]] = {}
    flood_q, paced_q = f"?n={flood}&pause=0", f"?n={paced}&pause=0.005"
    # the bridge: the real app with the test host
    sock = tmp / "bridge.sock"
    app = launch(display, ["-m", "tests.desktop.launch", "--data-dir", str(tmp / "bridge")], sock)
    try:
        page = driver.connect_ready(sock, timeout=60)
        run_case(page, "/api/events.bench?n=200&pause=0", True)  # warm-up
        results["bridge"] = {
            "flood": run_case(page, "/api/events.bench" + flood_q, True),
            "paced": run_case(page, "/api/events.bench" + paced_q, True),
        }
    finally:
        app.terminate()
        app.wait(20)
    # the baseline: same engine, loopback uvicorn, plain fetch
    port, sock = free_port(), tmp / "baseline.sock"
    (tmp / "baseline").mkdir()
    baseline_server(port, tmp / "baseline")
    url = f"http://127.0.0.1:{port}/index.html"
    child = launch(display, [__file__, "--baseline-window", url], sock)
    try:
        loaded = "new Promise(r => { const t = () => location.protocol === 'http:' && "
        loaded += "document.readyState === 'complete' ? r(true) : setTimeout(t, 20); t(); })"
        page = driver.connect_ready(sock, loaded, url_prefix="http://127.0.0.1", timeout=60)
        run_case(page, "/api/events.bench?n=200&pause=0", False)
        results["baseline"] = {
            "flood": run_case(page, "/api/events.bench" + flood_q, False),
            "paced": run_case(page, "/api/events.bench" + paced_q, False),
        }
    finally:
        child.terminate()
        child.wait(20)
    return results


def report(results: dict[str, dict[str, dict[str, float]]]) -> None:
    b, base = results["bridge"], results["baseline"]
    print(f"{'':28}{'bridge':>12}{'baseline':>12}{'ratio':>9}")

    def row(label: str, x: float, y: float, fmt: str = "{:12.1f}") -> None:
        ratio = f"{x / y:9.2f}" if y >= 0.5 else f"{'n/a':>9}"  # ms clocks: no ratio against ~0
        print(f"{label:28}{fmt.format(x)}{fmt.format(y)}{ratio}")

    row("flood events/s", b["flood"]["rate"], base["flood"]["rate"])
    row("flood page reads", b["flood"]["reads"], base["flood"]["reads"], "{:12.0f}")
    row(
        "flood events per read",
        b["flood"]["events"] / b["flood"]["reads"],
        base["flood"]["events"] / base["flood"]["reads"],
    )
    row("paced events/s", b["paced"]["rate"], base["paced"]["rate"])
    row("paced latency p50 (ms)", b["paced"]["p50"], base["paced"]["p50"])
    row("paced latency p99 (ms)", b["paced"]["p99"], base["paced"]["p99"])
    row("flood latency p99 (ms)", b["flood"]["p99"], base["flood"]["p99"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flood", type=int, default=20000, help="events in the flood run")
    parser.add_argument("--paced", type=int, default=400, help="events in the paced run (5 ms apart)")
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
            results = measure(display, args.flood, args.paced, Path(tmp))
            report(results)
            if args.json:
                flood = results["bridge"]["flood"]["rate"] / results["baseline"]["flood"]["rate"]
                figures = {"runs": results, "flood_ratio": flood}
                args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
            print(f"({time.monotonic() - started:.1f} s, display {display})")
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
