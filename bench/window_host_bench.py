"""Token to pixel in the window, its host in a child process against in-process, side by side
(docs/decisions/window-host-process.md; issue 48, goal 2).

    .venv/bin/python bench/window_host_bench.py [--rounds 5] [--tokens 300] [--rate 100] [--burners 2]

Two real apps (`tests.desktop.launch --webui webui --real-host`), each in its own Xvfb, on one
scripted OpenAI-compatible provider: one with its host in a child process, one (the default)
with its host in-process. With `--burners` busy-loop processes running (started
and stopped here, bench/load.py), `--rounds` rounds alternate the two (which goes first
alternates too); each round streams `--tokens` stamped deltas into a fresh session of each and
notes when each stamp first shows in the page (bench/pixel_observer.py, as window_day_bench
does). Prints the median over rounds of each round's p50 and p99, and the load. With `--cold N`
first (no burners): N cold starts of each, alternated, from the process's start to the page
`connected` (fresh data folders). No assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import Burners, load_now  # noqa: E402
from bench.window_day_bench import MODEL, pct, pixel_run  # noqa: E402
from tests.desktop import driver, x11  # noqa: E402
from tests.support.scripted_llm import ScriptedLlmServer  # noqa: E402

MODES = (("in-process", "inprocess"), ("child", "child"))
READY = (
    "new Promise(r => { const t = () => document.documentElement.dataset.connection === 'connected'"
    " ? r(true) : setTimeout(t, 20); t(); })"
)


def launch(tmp: Path, name: str, host: str, llm: ScriptedLlmServer) -> tuple[Any, Any, Any]:
    xvfb, display = x11.start_xvfb()
    sock = tmp / f"{name}.sock"
    cmd = [sys.executable, "-m", "tests.desktop.launch", "--webui", str(ROOT / "webui"), "--real-host"]
    cmd += ["--data-dir", str(tmp / f"{name}-data"), "--provider", "openai-compatible"]
    cmd += ["--base-url", llm.base_url, "--model", MODEL]
    env = {**os.environ, **driver.window_env(display, sock), "HARNESSDESK_WINDOW_HOST": host}
    env["PYTHONPATH"] = str(ROOT)
    app = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    page = driver.connect_ready(sock, READY, timeout=120)
    return xvfb, app, page


def cold_starts(runs: int) -> dict[str, list[float]]:
    """Seconds from starting the app to its page connected, per mode, alternated."""
    out: dict[str, list[float]] = {name: [] for name, _ in MODES}
    with ScriptedLlmServer() as llm:
        for r in range(runs):
            for name, host in MODES if r % 2 == 0 else MODES[::-1]:
                with tempfile.TemporaryDirectory(prefix="window-host-cold-") as tmp:
                    started = time.monotonic()
                    xvfb, app, page = launch(Path(tmp), name, host, llm)
                    out[name].append(time.monotonic() - started)
                    page.close()
                    for proc in (app, xvfb):
                        proc.terminate()
                        proc.wait(30)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    rows: dict[str, list[dict[str, float]]] = {name: [] for name, _ in MODES}
    procs: list[Any] = []
    with tempfile.TemporaryDirectory(prefix="window-host-bench-") as tmp, ScriptedLlmServer() as llm:
        cwd = Path(tmp) / "work"
        cwd.mkdir()
        try:
            pages = {}
            for name, host in MODES:
                xvfb, app, page = launch(Path(tmp), name, host, llm)
                procs += [app, xvfb]
                pages[name] = page
                pixel_run(page, llm, str(cwd), 20, args.rate)  # warm-up
            with Burners(args.burners):
                before = load_now()
                for r in range(args.rounds):
                    order = list(pages) if r % 2 == 0 else list(pages)[::-1]
                    for name in order:
                        got = pixel_run(pages[name], llm, str(cwd), args.tokens, args.rate)
                        rows[name].append(
                            {"p50": pct(got, 50), "p99": pct(got, 99), "missing": args.tokens - len(got)}
                        )
                load = {"burners": args.burners, "before": before, "after": load_now()}
        finally:
            for proc in procs:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    return {"rounds": rows, "load": load, "tokens": args.tokens, "rate": args.rate}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--burners", type=int, default=2)
    parser.add_argument("--cold", type=int, default=0, help="cold starts of each first")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    started = time.monotonic()
    if args.cold:
        cold = cold_starts(args.cold)
        print(f"cold start to connected, {args.cold} of each alternated (s; load {load_now()}):")
        for name, times in cold.items():
            print(f"{name:12}{statistics.median(times):8.2f}   " + ", ".join(f"{x:.2f}" for x in times))
    if not args.rounds:
        return 0
    figures = run(args)
    load = figures["load"]
    print(
        f"token to pixel in the window, {args.rounds} rounds x {args.tokens} deltas at {args.rate:g}/s,"
        f" {load['burners']} CPU burners (load {load['before']} -> {load['after']})"
    )
    print(f"{'host':12}{'p50 (median)':>14}{'p99 (median)':>14}   p99 per round")
    for name, rounds in figures["rounds"].items():
        p50 = statistics.median(r["p50"] for r in rounds)
        p99 = statistics.median(r["p99"] for r in rounds)
        per = ", ".join(f"{r['p99']:.0f}" for r in rounds)
        missing = sum(r["missing"] for r in rounds)
        print(f"{name:12}{p50:14.1f}{p99:14.1f}   {per}" + (f"  ({missing} never seen)" if missing else ""))
    print(f"({time.monotonic() - started:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
