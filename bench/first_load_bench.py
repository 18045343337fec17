"""The web UI's first load: a new browser context opening the app, a reload, a second window.

    python bench/first_load_bench.py [--runs 10] [--against CHECKOUT] [--window] [--json FILE]

A real `harnessdesk serve` (on the scripted provider, tests/support/scripted_llm.py) and headless
Chromium (Playwright). Each run opens the one-time URL in a new context (an empty cache: what
every browser test and a person's first visit pay), then reloads that page, then opens a second
page in the same context (a second window, cache warm). Each is timed from `goto` to
`data-connection=connected` (wall) and by the CPU the Chromium processes used meanwhile (utime +
stime of this process's Chromium descendants from /proc, the reaped children's included).

Variants, same run, same server, interleaved run by run:
- `preload`: the page as served (host/server/preload.py adds a `<link rel="modulepreload">` per
  module the first screen imports);
- `waterfall` (the baseline): the same page with those links removed on the way to the browser
  (a Playwright route on the document only; `preload` goes through the same route unchanged, so
  both pay it), i.e. the module graph found one level at a time;
- `--against DIR`: also a server run from another checkout (e.g. main before this work), as it
  serves itself (its own index.html, its own cache headers).
`--window` also reloads the real app's WebKitGTK window `--runs` times per variant under Xvfb
(bench/first_load_window.py): wall to connected, the page's loadEventEnd, the app's CPU.
Prints the import graph (modules, levels = the waterfall's round trips), then per variant and
phase the median wall ms, median Chromium CPU ms and requests, and the ratio to the baseline's
fresh open. No assertions (the check that the page still works is tests/browser/test_first_load.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright  # noqa: E402

from bench.first_load_window import run_window  # noqa: E402
from bench.first_load_window import summary as window_summary  # noqa: E402
from host.server.preload import OFF, module_graph  # noqa: E402
from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, HarnessServer, openai_args  # noqa: E402
from tests.support.scripted_llm import ScriptedLlmServer  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
PHASES = ("fresh", "reload", "second")


class EnvServer(HarnessServer):
    """`harnessdesk serve` with extra environment variables."""

    def __init__(self, root: Path, provider_args: list[str], env: dict[str, str]) -> None:
        super().__init__(root, provider_args)
        self.env = env

    def start(self) -> str:
        saved = {name: os.environ.get(name) for name in self.env}
        os.environ.update(self.env)
        try:
            return super().start()
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


class CheckoutServer(HarnessServer):
    """`harnessdesk serve` run from another checkout's sources (same Python, same packages)."""

    def __init__(self, root: Path, provider_args: list[str], checkout: Path) -> None:
        super().__init__(root, provider_args)
        self.checkout = checkout

    def command(self) -> list[str]:
        boot = (
            f"import sys, runpy; sys.path.insert(0, {str(self.checkout)!r}); "
            "runpy.run_module('desktop', run_name='__main__')"
        )
        return [sys.executable, "-c", boot, *super().command()[3:]]


def chromium_cpu() -> float:
    """Seconds of CPU used by this process's Chromium descendants (and their reaped children)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        if "chrom" in name:
            times[int(entry)] = sum(int(f) for f in fields[11:15]) / TICK
    me = os.getpid()

    def mine(pid: int) -> bool:
        while pid > 1:
            if pid == me:
                return True
            pid = parents.get(pid, 0)
        return False

    return sum(t for pid, t in times.items() if mine(pid))


def timed(page: Page, action: Any) -> dict[str, float]:
    """Wall and Chromium CPU (ms) from `action` to the page being connected, and its requests."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    cpu, started = chromium_cpu(), time.perf_counter()
    action()
    expect(page.locator("html")).to_have_attribute("data-connection", "connected", timeout=60_000)
    wall = time.perf_counter() - started
    return {"wall": wall * 1000, "cpu": (chromium_cpu() - cpu) * 1000, "requests": len(requests)}


def with_context(browser: Browser, run: Any) -> dict[str, dict[str, float]]:
    context = browser.new_context(viewport=VIEWPORT)
    try:
        return dict(run(context))
    finally:
        context.close()


def blank_run(context: BrowserContext, url: str) -> dict[str, dict[str, float]]:
    """A new context opening one small file: what a new context costs without the app."""
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    cpu, started = chromium_cpu(), time.perf_counter()
    page.goto(url)
    wall = time.perf_counter() - started
    return {"fresh": {"wall": wall * 1000, "cpu": (chromium_cpu() - cpu) * 1000, "requests": len(requests)}}


def one_run(context: BrowserContext, url: str) -> dict[str, dict[str, float]]:
    page = context.new_page()
    fresh = timed(page, lambda: page.goto(url))
    reload = timed(page, page.reload)
    second_page = context.new_page()
    second = timed(second_page, lambda: second_page.goto(url))
    return {"fresh": fresh, "reload": reload, "second": second}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--against", type=Path, help="another checkout to serve as a third variant")
    parser.add_argument("--window", action="store_true", help="also the desktop window (Xvfb)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    graph = module_graph(ROOT / "webui")
    print(
        f"import graph: {len(graph.modules)} modules, {len(graph.levels)} levels "
        f"(per level: {[len(level) for level in graph.levels]})"
    )
    load = os.getloadavg()
    samples: dict[str, list[dict[str, dict[str, float]]]] = {}
    with tempfile.TemporaryDirectory(prefix="first-load-") as tmp, ScriptedLlmServer() as llm:
        provider = openai_args(llm.base_url)
        servers: dict[str, HarnessServer] = {
            "waterfall": EnvServer(Path(tmp) / "waterfall", provider, {OFF: "1"}),
            "preload": HarnessServer(Path(tmp) / "preload", provider),
        }
        if args.against:
            servers[f"against {args.against}"] = CheckoutServer(Path(tmp) / "against", provider, args.against)
        urls = {name: server.start() for name, server in servers.items()}
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for url in urls.values():  # one unmeasured warm-up each
                    with_context(browser, lambda context, url=url: one_run(context, url))
                floor = urls["preload"].split("?", 1)[0] + "favicon.svg"
                for _ in range(args.runs):
                    blank = with_context(browser, lambda context: blank_run(context, floor))
                    samples.setdefault("blank page (the floor)", []).append(blank)
                    for variant, url in urls.items():
                        run = with_context(browser, lambda context, url=url: one_run(context, url))
                        samples.setdefault(variant, []).append(run)
                browser.close()
        finally:
            for server in servers.values():
                server.stop()
        window = run_window(llm.base_url, args.runs) if args.window else {}
    load_after = os.getloadavg()

    figures: dict[str, Any] = {"modules": len(graph.modules), "levels": len(graph.levels), "runs": args.runs}
    base = statistics.median(s["fresh"]["cpu"] for s in samples["waterfall"]) or 1.0
    print(f"runs {args.runs}, load {load[0]:.1f} -> {load_after[0]:.1f}; medians")
    print(f"{'variant':<34}{'phase':<8}{'wall ms':>9}{'cpu ms':>9}{'requests':>10}{'cpu / baseline':>16}")
    for variant, runs in samples.items():
        for phase in [p for p in PHASES if p in runs[0]]:
            wall = statistics.median(r[phase]["wall"] for r in runs)
            cpu = statistics.median(r[phase]["cpu"] for r in runs)
            reqs = statistics.median(r[phase]["requests"] for r in runs)
            figures[f"{variant} {phase}"] = {
                "wall_ms": round(wall, 1),
                "cpu_ms": round(cpu, 1),
                "requests": reqs,
            }
            print(f"{variant:<34}{phase:<8}{wall:>9.0f}{cpu:>9.0f}{reqs:>10.0f}{cpu / base:>16.2f}")
    if window:
        print(f"{'window (WebKitGTK) reload':<34}{'wall ms':>9}{'cpu ms':>9}{'loadEventEnd':>14}")
        for variant, figure in window_summary(window).items():
            figures[variant] = figure
            print(f"{variant:<34}{figure['wall']:>9.0f}{figure['cpu']:>9.0f}{figure['load']:>14.0f}")
    figures["load"] = [round(load[0], 2), round(load_after[0], 2)]
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
