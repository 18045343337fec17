"""Terminal: `cat` of a large file in the Terminal pane, against the PTY alone, in one run.

    python bench/terminal_bench.py [--mb 50] [--runs 1] [--json FILE]

A file of `--mb` MB of text lines is made in a temporary folder. Per run, interleaved:
- pty: this process starts `cat FILE` on a fresh PTY (the standard library's `os.openpty`) and
  reads the PTY's other side as fast as it can: what the kernel's PTY gives, nothing drawn;
- devnull: in the product's terminal (the person's shell on the host's PTY), `cat FILE >
  /dev/null`, timed by the shell itself (`date +%s%N` around it): the file's read;
- page: in the product's terminal, `cat FILE` with its output drawn by xterm.js in a headless
  Chromium page on `harnessdesk serve` (mux frames, flow control with the page's
  acknowledgements), from the input sent until the page has drawn the line after it.
  Meanwhile the page samples `requestAnimationFrame`: the gaps between frames tell whether it
  stays responsive (p50, p99, max, in ms);
- xterm: the same page writes the same bytes straight into a second xterm.js terminal (each write
  after the last one's callback), with the same frame sampling: what xterm.js itself costs in
  this browser, the ceiling of the page's figure.
- tree: a file written in the session's folder until the Files pane shows it (watch, debounce,
  `files/changed`, the pane's re-read), ten times, against a `files.tree` call from the page.
Figures: bytes/s of each, and the ratios page/pty and page/devnull (1.0 = as fast as the PTY
alone); medians over the runs. Machine load hits every kind alike; no assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LISTENING = "HarnessDesk listening on "
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

FRAMES = """() => {
  window.__gaps = [];
  let last = performance.now();
  const tick = (now) => {
    window.__gaps.push(now - last);
    last = now;
    if (window.__sampling) requestAnimationFrame(tick);
  };
  window.__sampling = true;
  requestAnimationFrame(tick);
}"""
LAST_LINES = """(n) => {
  const t = window.harnessdesk.app.terminalPane.active.term.buffer.active;
  const out = [];
  for (let i = Math.max(0, t.length - n); i < t.length; i++) {
    out.push(t.getLine(i)?.translateToString(true) ?? "");
  }
  return out.join("\\n");
}"""


def make_file(folder: Path, mb: int) -> Path:
    line = b"".join(bytes([48 + (i % 10)]) for i in range(79)) + b"\n"
    path = folder / "big.txt"
    with path.open("wb") as fh:
        block = line * 1024
        for _ in range(mb * (1 << 20) // len(block)):
            fh.write(block)
    return path


def pty_read(path: Path) -> dict[str, float]:
    """`cat FILE` on a fresh PTY, its output read here as fast as possible."""
    master, slave = os.openpty()
    started = time.perf_counter()
    proc = subprocess.Popen(["cat", str(path)], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    total = 0
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        total += len(chunk)
    secs = time.perf_counter() - started
    proc.wait()
    os.close(master)
    return {"bytes": total, "secs": secs, "bytesPerSec": total / secs}


def serve(data_dir: Path, cwd: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "desktop", "serve", "--data-dir", str(data_dir), "--port", "0"]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    if not line.startswith(LISTENING):
        raise RuntimeError(f"serve printed {line!r}")
    return proc, line[len(LISTENING) :].strip()


def wait_for(page: Any, pattern: str, timeout: float = 600.0) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while True:
        found = re.search(pattern, page.evaluate(LAST_LINES, 12))
        if found:
            return found
        if time.monotonic() > deadline:
            raise TimeoutError(pattern)
        time.sleep(0.02)


def send(page: Any, text: str) -> None:
    page.evaluate(
        "(t) => { const a = window.harnessdesk.app;"
        " return a.terminals.input(a.terminalPane.active.terminalId, t); }",
        text,
    )


XTERM_ALONE = """async (total) => {
  const { Terminal } = await import("/vendor/xterm/xterm.mjs");
  const el = document.createElement("div");
  el.className = "term-view";
  document.querySelector("[data-testid=terminal-body]").append(el);
  const term = new Terminal({ scrollback: 10000, fontSize: 13 });
  term.open(el);
  const line = "0123456789".repeat(8).slice(0, 79) + "\\r\\n";
  const chunk = new TextEncoder().encode(line.repeat(800));
  const gaps = [];
  let last = performance.now();
  let on = true;
  const tick = (now) => {
    gaps.push(now - last);
    last = now;
    if (on) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  const started = performance.now();
  let sent = 0;
  await new Promise((done) => {
    const next = () => {
      if (sent >= total) return done();
      sent += chunk.length;
      term.write(chunk, next);
    };
    next();
  });
  const secs = (performance.now() - started) / 1000;
  on = false;
  term.dispose();
  el.remove();
  return { secs, bytes: sent, gaps };
}"""


def frames_of(gaps: list[float]) -> dict[str, float]:
    return {
        "count": len(gaps),
        "p50": percentile(gaps, 0.5),
        "p99": percentile(gaps, 0.99),
        "max": max(gaps, default=0.0),
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


Rows = list[dict[str, Any]]


def page_runs(
    path: Path, folder: Path, runs: int, sink: Rows, devnull: Rows, alone: Rows, tree: Rows
) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="term-bench-data-") as data:
        proc, url = serve(Path(data), folder)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(url)
                page.wait_for_function(
                    "() => document.documentElement.dataset.connection === 'connected'", timeout=60_000
                )
                sid = page.evaluate(
                    "async (cwd) => { const c = window.harnessdesk.client;"
                    " return (await c.call('session.create', {cwd})).value.sessionId; }",
                    str(folder),
                )
                page.wait_for_function("(s) => window.harnessdesk.app.manager.summaries.has(s)", arg=sid)
                page.evaluate(
                    "(s) => { window.harnessdesk.app.open(s);"
                    " window.harnessdesk.app.panes.toggle('terminal', true); }",
                    sid,
                )
                page.wait_for_function("() => !!window.harnessdesk.app.terminalPane.active", timeout=60_000)
                send(page, "echo READY-$((1+1))\n")
                wait_for(page, r"READY-2")
                for run in range(runs):
                    send(
                        page,
                        f"s=$(date +%s%N); cat {path} > /dev/null; e=$(date +%s%N);"
                        f" echo DEVNULL-{run}:$((e-s)):END\n",
                    )
                    ns = int(wait_for(page, rf"DEVNULL-{run}:(\d+):END").group(1))
                    devnull.append({"secs": ns / 1e9, "bytesPerSec": path.stat().st_size / (ns / 1e9)})
                    page.evaluate("() => window.harnessdesk.app.terminalPane.active.term.clear()")
                    page.evaluate(FRAMES)
                    tid = page.evaluate("() => window.harnessdesk.app.terminalPane.active.terminalId")
                    before = page.evaluate(
                        "(t) => window.harnessdesk.app.terminals.attached.get(t).drawn", tid
                    )
                    started = time.perf_counter()
                    send(page, f"cat {path}; echo CAT-DONE-{run}-$((1+1))\n")
                    wait_for(page, rf"CAT-DONE-{run}-2")
                    secs = time.perf_counter() - started
                    gaps = page.evaluate("() => { window.__sampling = false; return window.__gaps; }")
                    drawn = (
                        page.evaluate("(t) => window.harnessdesk.app.terminals.attached.get(t).drawn", tid)
                        - before
                    )
                    sink.append(
                        {
                            "secs": secs,
                            "bytes": drawn,
                            "bytesPerSec": drawn / secs,
                            "frames": frames_of(gaps),
                        }
                    )
                    direct = page.evaluate(XTERM_ALONE, drawn)
                    alone.append(
                        {
                            "secs": direct["secs"],
                            "bytes": direct["bytes"],
                            "bytesPerSec": direct["bytes"] / direct["secs"],
                            "frames": frames_of(direct["gaps"]),
                        }
                    )
                    print(
                        f"run {run}: page {drawn / secs / 1e6:.1f} MB/s,"
                        f" frame p99 {sink[-1]['frames']['p99']:.1f} ms",
                        flush=True,
                    )
                tree_runs(page, folder, runs=10, sink=tree)
                browser.close()
        finally:
            proc.terminate()
            proc.wait(30)


TREE_CALL = """async (s) => {
  const started = performance.now();
  await window.harnessdesk.client.call("files.tree", { sessionId: s });
  return performance.now() - started;
}"""


def tree_runs(page: Any, folder: Path, runs: int, sink: Rows) -> None:
    """A file written in the folder until the Files pane shows it (the watch, the debounce, the
    frame, the pane's re-read and its drawing), timed here in one clock; the baseline is a
    `files.tree` call from the same page (what the re-read alone costs)."""
    page.evaluate("() => window.harnessdesk.app.panes.toggle('files', true)")
    page.wait_for_selector("[data-testid=files-entry][data-path='big.txt']", timeout=60_000)
    sid = page.evaluate("() => window.harnessdesk.app.manager.activeId")
    for run in range(runs):
        name = f"watched-{run}.txt"
        started = time.perf_counter()
        (folder / name).write_text("x\n")
        page.wait_for_selector(f"[data-testid=files-entry][data-path='{name}']", timeout=60_000)
        shown_ms = (time.perf_counter() - started) * 1000
        sink.append({"shownMs": shown_ms, "treeCallMs": page.evaluate(TREE_CALL, sid)})
        time.sleep(0.2)  # the next write starts a new batch
    print(
        f"file to tree: p50 {statistics.median(r['shownMs'] for r in sink):.0f} ms,"
        f" max {max(r['shownMs'] for r in sink):.0f} ms",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="term-bench-", dir="/var/tmp") as tmp:
        folder = Path(tmp)
        path = make_file(folder, args.mb)
        raw = [pty_read(path) for _ in range(args.runs)]
        page: list[dict[str, Any]] = []
        devnull: list[dict[str, Any]] = []
        alone: list[dict[str, Any]] = []
        tree: list[dict[str, Any]] = []
        page_runs(path, folder, args.runs, page, devnull, alone, tree)
    med = lambda rows, key="bytesPerSec": statistics.median(r[key] for r in rows)  # noqa: E731
    figures = {
        "mb": args.mb,
        "runs": args.runs,
        "pty": raw,
        "devnull": devnull,
        "page": page,
        "xterm": alone,
        "tree": tree,
        "summary": {
            "ptyBytesPerSec": med(raw),
            "devnullBytesPerSec": med(devnull),
            "pageBytesPerSec": med(page),
            "page/pty": med(page) / med(raw),
            "page/devnull": med(page) / med(devnull),
            "xtermBytesPerSec": med(alone),
            "page/xterm": med(page) / med(alone),
            "xtermFrameP99Ms": statistics.median(r["frames"]["p99"] for r in alone),
            "frameP50Ms": statistics.median(r["frames"]["p50"] for r in page),
            "frameP99Ms": statistics.median(r["frames"]["p99"] for r in page),
            "frameMaxMs": max(r["frames"]["max"] for r in page),
            "fileToTreeP50Ms": med(tree, "shownMs"),
            "fileToTreeMaxMs": max(r["shownMs"] for r in tree),
            "treeCallP50Ms": med(tree, "treeCallMs"),
            "fileToTree/treeCall": med(tree, "shownMs") / med(tree, "treeCallMs"),
        },
    }
    s = figures["summary"]
    mbs = {k: s[f"{k}BytesPerSec"] / 1e6 for k in ("pty", "devnull", "page", "xterm")}
    print(
        f"{args.mb} MB: pty {mbs['pty']:.1f} MB/s, cat > /dev/null {mbs['devnull']:.1f} MB/s,"
        f" page {mbs['page']:.1f} MB/s (page/pty {s['page/pty']:.3f});"
        f" frames p50 {s['frameP50Ms']:.1f} ms, p99 {s['frameP99Ms']:.1f} ms, max {s['frameMaxMs']:.0f} ms;"
        f" xterm.js alone {mbs['xterm']:.1f} MB/s (page/xterm {s['page/xterm']:.2f}),"
        f" its p99 {s['xtermFrameP99Ms']:.1f} ms; a file written to shown in the Files pane"
        f" p50 {s['fileToTreeP50Ms']:.0f} ms (max {s['fileToTreeMaxMs']:.0f} ms,"
        f" {s['fileToTree/treeCall']:.1f}x a files.tree call)"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
