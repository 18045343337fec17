"""The review pane with a 5,000-line diff, against a 50-line diff in the same run (issue 42).

    python bench/review_bench.py [--lines 5000] [--small 50] [--rounds 3] [--json FILE]

Two git repositories under /var/tmp: each has a committed file whose every other line the work
tree changes, so the big one's diff is `--lines` changed lines in `--lines / 2` hunks (the
smallest runs, with a collapsed gap between each two) and the small one's `--small`. The real
`harnessdesk serve` and a headless Chromium open one session on each. Per round and repository:
- open: from opening the pane (Uncommitted scope) until its first diff line is drawn — git.status
  in the sandbox, the answer, the rows built and the visible ones drawn;
- scroll: the list scrolled from top to bottom in steps of one screen per frame, the gaps between
  animation frames (p50, p99) and the most diff-line rows in the DOM at once (virtualized: about a
  screenful whatever the diff's size).
Printed with the ratios big/small of the medians over the rounds; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LISTENING = "HarnessDesk listening on "
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

OPEN = """async (sid) => {
  const app = window.harnessdesk.app;
  app.toggleChanges(false);
  app.open(sid);
  await new Promise((r) => setTimeout(r, 200));
  app.review.scope = "uncommitted";
  const started = performance.now();
  app.toggleChanges(true);
  await new Promise((done) => {
    const drawn = () => document.querySelector("[data-testid=review-line]");
    const look = () => (drawn() ? done() : requestAnimationFrame(look));
    look();
  });
  return performance.now() - started;
}"""
SCROLL = """async () => {
  const s = document.querySelector(".review-scroll");
  s.scrollTop = 0;
  await new Promise((r) => requestAnimationFrame(r));
  const gaps = [];
  let rows = 0;
  let last = performance.now();
  while (s.scrollTop + s.clientHeight < s.scrollHeight - 2) {
    s.scrollTop += s.clientHeight;
    await new Promise((r) => requestAnimationFrame(r));
    const now = performance.now();
    gaps.push(now - last);
    last = now;
    rows = Math.max(rows, document.querySelectorAll("[data-testid=review-line]").length);
  }
  gaps.sort((a, b) => a - b);
  const at = (q) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))] ?? 0;
  return { frames: gaps.length, p50: at(0.5), p99: at(0.99), rows, height: s.scrollHeight };
}"""


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, timeout=120)


def make_repo(folder: Path, changed: int) -> None:
    """A committed file of `2 * changed` lines; the work tree changes every other one."""
    folder.mkdir(parents=True)
    git(folder, "init", "-q", "-b", "main")
    lines = [f"line {i}\n" for i in range(1, 2 * changed + 1)]
    (folder / "f.txt").write_text("".join(lines))
    git(folder, "add", "f.txt")
    git(folder, "-c", "user.name=B", "-c", "user.email=b@example.invalid", "commit", "-q", "-m", "start")
    (folder / "f.txt").write_text("".join(x.upper() if i % 2 == 0 else x for i, x in enumerate(lines)))


def serve(data_dir: Path, cwd: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "desktop", "serve", "--data-dir", str(data_dir), "--port", "0"]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    if not line.startswith(LISTENING):
        raise RuntimeError(f"serve printed {line!r}")
    return proc, line[len(LISTENING) :].strip()


def measure(place: Path, lines: int, small: int, rounds: int) -> dict[str, list[dict[str, Any]]]:
    from playwright.sync_api import sync_playwright

    repos = {"big": place / "big", "small": place / "small"}
    make_repo(repos["big"], lines)
    make_repo(repos["small"], small)
    out: dict[str, list[dict[str, Any]]] = {"big": [], "small": []}
    proc, url = serve(place / "data", place)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(url)
            page.wait_for_function(
                "() => document.documentElement.dataset.connection === 'connected'", timeout=60_000
            )
            sids = {
                name: page.evaluate(
                    "async (cwd) => (await window.harnessdesk.client.call('session.create', {cwd}))"
                    ".value.sessionId",
                    str(folder),
                )
                for name, folder in repos.items()
            }
            for name in sids.values():
                page.wait_for_function("(s) => window.harnessdesk.app.manager.summaries.has(s)", arg=name)
            for _ in range(rounds):
                for name in ("small", "big"):
                    opened = page.evaluate(OPEN, sids[name])
                    scrolled = page.evaluate(SCROLL)
                    out[name].append({"openMs": opened, **scrolled})
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--small", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="review-bench-", dir="/var/tmp") as tmp:
        runs = measure(Path(tmp), args.lines, args.small, args.rounds)
    med = {
        n: {k: statistics.median(r[k] for r in rows) for k in ("openMs", "p50", "p99", "rows")}
        for n, rows in runs.items()
    }
    summary = {
        "lines": args.lines,
        "small": args.small,
        "openMs": med["big"]["openMs"],
        "smallOpenMs": med["small"]["openMs"],
        "open/small": med["big"]["openMs"] / med["small"]["openMs"],
        "frameP50Ms": med["big"]["p50"],
        "frameP99Ms": med["big"]["p99"],
        "smallFrameP99Ms": med["small"]["p99"],
        "maxLineRows": med["big"]["rows"],
        "smallMaxLineRows": med["small"]["rows"],
    }
    print(
        f"review pane, {args.lines}-line diff vs {args.small}: first paint {summary['openMs']:.0f} ms"
        f" vs {summary['smallOpenMs']:.0f} ms ({summary['open/small']:.1f}x); scroll frames p50"
        f" {summary['frameP50Ms']:.1f} ms, p99 {summary['frameP99Ms']:.1f} ms (small p99"
        f" {summary['smallFrameP99Ms']:.1f} ms); at most {summary['maxLineRows']:.0f} line rows in the DOM"
        f" (small {summary['smallMaxLineRows']:.0f})"
    )
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "summary": summary}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
