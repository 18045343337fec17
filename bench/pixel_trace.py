"""Where token-to-pixel's milliseconds go: one stamped token followed through every stage.

    python bench/pixel_trace.py [--carrier window|chromium|both] [--tokens 300] [--runs 3]
                                [--burners 0]

The scripted provider writes each delta as `<ns>` (its wall-clock write time, as in
bench/pixel_bench.py). The host under test runs with `install()` applied (this module is its
entry point), which notes per stamp the wall-clock time it passed each host stage:

- `read`: the turn's stream reader took the provider's delta (host/engine/agent/stream_buffer.py);
- `encoded`: the SSE frame holding it was encoded, i.e. its event was committed and published
  (host/fetch/streams.py; "durable before visible" holds frames until their commit);
- window only: `put` (the bridge's pump handed the frame's text to the pusher, desktop/bridge.py),
  `push` (the pusher's `run_js` began) and `pushed` (`run_js` returned: the page ran it).

In the page: `enqueue` (the bridge's JS put the bytes into the stream, window only), `arrived`
(the page's fetch reader got them), `dom` (the text is in the assistant's row: the MutationObserver
of bench/pixel_observer.py) and `frame` (the next animation frame after that: the paint follows
it). Prints, per carrier, the p50 / p99 of each stage's share and of the total. No assertions:
a tool for finding the time, not a goal row.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STAMP_TEXT = re.compile(r"<(\d{19})>")
ENV = "PIXEL_TRACE"
BLOCKING = "PIXEL_TRACE_BLOCKING"
"""`1`: the window's pusher waits for each push (as before pipelining), for a side-by-side run."""


# ---- inside the host process -------------------------------------------------------------------


class Trace:
    """stage → {stamp: ns}, written to `path` as JSON every half second and at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stages: dict[str, dict[str, int]] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._dump_loop, daemon=True, name="pixel-trace").start()

    def note(self, stage: str, text: str) -> None:
        if "<" not in text:
            return
        now = time.time_ns()
        seen = self.stages.setdefault(stage, {})
        for m in STAMP_TEXT.finditer(text):
            seen.setdefault(m.group(1), now)

    def dump(self) -> None:
        with self.lock:
            part = self.path.with_suffix(".part")
            part.write_text(json.dumps(self.stages), encoding="utf-8")
            part.replace(self.path)

    def _dump_loop(self) -> None:
        while True:
            time.sleep(0.5)
            self.dump()


def install(path: Path) -> Trace:
    """Wrap the host's stages (and the window's bridge, when imported) to note each stamp."""
    trace = Trace(path)
    from desktop import pusher as pusher_mod
    from host.engine.agent import stream_buffer
    from host.fetch import streams

    as_chunk = stream_buffer.as_chunk

    def traced_as_chunk(raw: Any) -> Any:
        chunk = as_chunk(raw)
        trace.note("read", str(getattr(chunk, "text", "") or ""))
        return chunk

    stream_buffer.as_chunk = traced_as_chunk  # type: ignore[assignment]

    encode_event = streams.encode_event

    def traced_encode(event_id: int, data: bytes) -> bytes:
        trace.note("encoded", data.decode("utf-8", "replace"))
        return encode_event(event_id, data)

    streams.encode_event = traced_encode  # type: ignore[assignment]

    put = pusher_mod.Pusher.put

    def traced_put(self: Any, stream_id: str, kind: str, data: str | bytes = "") -> None:
        if isinstance(data, str):
            trace.note("put", data)
        put(self, stream_id, kind, data)

    pusher_mod.Pusher.put = traced_put  # type: ignore[method-assign]
    init = pusher_mod.Pusher.__init__
    blocking = os.environ.get(BLOCKING) == "1"

    def traced_init(self: Any, run_js: Any, **kw: Any) -> None:
        def timed(script: str) -> object:
            trace.note("push", script)
            try:
                return run_js(script)
            finally:
                trace.note("pushed", script)

        start_js = kw.pop("start_js", None)
        if start_js is not None and not blocking:
            from gi.repository import GLib

            from desktop import gtkshell

            window = start_js.args[0]

            def traced_start(script: str, done: Any) -> None:
                trace.note("push", script)

                def finished(webview: Any, result: Any) -> None:
                    trace.note("pushed", script)
                    try:
                        webview.evaluate_javascript_finish(result)
                    finally:
                        done()

                def run() -> bool:
                    trace.note("dispatch", script)
                    gtkshell.browser_view(window).webview.evaluate_javascript(
                        script=script,
                        length=-1,
                        world_name=None,
                        source_uri=None,
                        cancellable=None,
                        callback=finished,
                    )
                    return False

                GLib.idle_add(run, priority=GLib.PRIORITY_HIGH_IDLE)

            kw["start_js"] = traced_start
        init(self, timed, **kw)

    pusher_mod.Pusher.__init__ = traced_init  # type: ignore[method-assign]
    return trace


def host_main(argv: list[str]) -> int:
    """`python bench/pixel_trace.py --host window|serve ARGS…` (with $PIXEL_TRACE): the app."""
    trace = install(Path(os.environ[ENV]))
    kind, rest = argv[0], argv[1:]
    try:
        if kind == "window":
            from tests.desktop.launch import run

            return run(rest)
        from desktop.cli import main

        return main(["serve", *rest])
    finally:
        trace.dump()


# ---- the page ------------------------------------------------------------------------------

PAGE_HOOKS = """(() => {
  const marks = {enqueue: new Map(), arrived: new Map(), dom: new Map(), frame: new Map()};
  window.__trace = marks;
  const now = () => (performance.timeOrigin + performance.now()) * 1e6;
  const decoder = new TextDecoder();
  const note = (stage, text) => {
    if (!text.includes("<")) return;
    const at = now();
    for (const m of text.matchAll(/<(\\d{19})>/g)) if (!marks[stage].has(m[1])) marks[stage].set(m[1], at);
  };
  const enqueue = ReadableStreamDefaultController.prototype.enqueue;
  ReadableStreamDefaultController.prototype.enqueue = function (chunk) {
    if (chunk instanceof Uint8Array) note("enqueue", decoder.decode(chunk));
    return enqueue.call(this, chunk);
  };
  const read = ReadableStreamDefaultReader.prototype.read;
  ReadableStreamDefaultReader.prototype.read = function () {
    return read.call(this).then((r) => {
      if (r.value instanceof Uint8Array) note("arrived", decoder.decode(r.value));
      return r;
    });
  };
  return true;
})()"""
"""Before the app's scripts (Chromium: an init script; the window: installed once the page is
ready, which is before the first turn's stream bytes since the hooks patch prototypes)."""

PAGE_OBSERVER = """(() => {
  const marks = window.__trace;
  for (const k of ["enqueue", "arrived", "dom", "frame"]) marks[k].clear();
  const now = () => (performance.timeOrigin + performance.now()) * 1e6;
  let waiting = [];
  const scan = () => {
    const at = now();
    const nodes = document.querySelectorAll('[data-testid="assistant-text"]');
    const text = nodes.length ? nodes[nodes.length - 1].textContent : "";
    let fresh = false;
    for (const m of text.matchAll(/<(\\d{19})>/g)) {
      if (marks.dom.has(m[1])) continue;
      marks.dom.set(m[1], at);
      waiting.push(m[1]);
      fresh = true;
    }
    if (fresh && waiting.length === 1 || fresh && !window.__traceFrame) {
      window.__traceFrame = requestAnimationFrame(() => {
        window.__traceFrame = 0;
        const t = now();
        for (const s of waiting) marks.frame.set(s, t);
        waiting = [];
      });
    }
  };
  // the main thread's busy spans: a MessageChannel ping every 2 ms, its lateness noted; and the
  // animation-frame callbacks' own time
  const busy = (window.__traceBusy = {lag: [], raf: [], start: performance.now()});
  if (!window.__traceLag) {
    const ch = new MessageChannel();
    let sent = 0;
    ch.port1.onmessage = () => {
      const late = performance.now() - sent;
      if (late > 4) window.__traceBusy.lag.push(late);
      setTimeout(() => { sent = performance.now(); ch.port2.postMessage(0); }, 2);
    };
    sent = performance.now();
    ch.port2.postMessage(0);
    window.__traceLag = true;
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (cb) => raf((t) => {
      const t0 = performance.now();
      try { cb(t); } finally { window.__traceBusy.raf.push(performance.now() - t0); }
    });
  }
  window.__traceObserver?.disconnect();
  window.__traceObserver = new MutationObserver(scan);
  window.__traceObserver.observe(document.body, {subtree: true, childList: true, characterData: true});
  return true;
})()"""

PAGE_MARKS = "Object.fromEntries(Object.entries(window.__trace).map(([k, m]) => [k, [...m.entries()]]))"
PAGE_BUSY = "({...window.__traceBusy, span: performance.now() - window.__traceBusy.start})"

STAGES = ("read", "encoded", "put", "push", "dispatch", "enqueue", "pushed", "arrived", "dom", "frame")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else float("nan")


def cpu_by_name(root: int) -> dict[str, float]:
    """CPU seconds (user + system) of `root` and its descendants, by process name (/proc)."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                raw = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            name, rest = raw[raw.index("(") + 1 : raw.rindex(")")], raw[raw.rindex(")") + 2 :].split()
            stats[int(entry)] = [name, *rest]
            children.setdefault(int(rest[1]), []).append(int(entry))
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        if pid in stats:
            fields = stats[pid]
            out[fields[0]] = out.get(fields[0], 0.0) + (int(fields[12]) + int(fields[13])) / tick
    return out


def cpu_delta(before: dict[str, float], after: dict[str, float]) -> str:
    spent = {k: v - before.get(k, 0.0) for k, v in after.items()}
    return ", ".join(f"{k} {v:.2f}" for k, v in sorted(spent.items(), key=lambda kv: -kv[1]) if v >= 0.05)


def print_busy(busy: dict[str, Any]) -> None:
    """The page's main thread over one run: pings late by > 4 ms, animation-frame callbacks."""
    lag, raf, span = busy["lag"], busy["raf"], busy["span"]
    print(
        f"  page main thread over {span / 1000:.1f} s: {len(lag)} late pings, {sum(lag):.0f} ms late in all, "
        f"p50 {pct(lag, 50):.1f} / max {max(lag, default=0):.1f} ms; {len(raf)} frames, callbacks "
        f"{sum(raf):.0f} ms in all, p50 {pct(raf, 50):.1f} / p99 {pct(raf, 99):.1f} ms"
    )


def merge_marks(
    host: dict[str, dict[str, int]], page: dict[str, list[list[Any]]]
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {k: {s: float(t) for s, t in v.items()} for k, v in host.items()}
    for stage, pairs in page.items():
        out[stage] = {str(s): float(t) for s, t in pairs}
    return out


def report(title: str, runs: list[dict[str, dict[str, float]]]) -> dict[str, Any]:
    """Per stage: ms from the stamp (its write) and from the previous stage present."""
    rows: dict[str, Any] = {}
    present = [s for s in STAGES if any(r.get(s) for r in runs)]
    print(title)
    print(f"  {'stage':10}{'from write p50':>16}{'p99':>9}{'step p50':>11}{'p99':>9}{'n':>7}")
    prev: str | None = None
    for stage in present:
        total: list[float] = []
        step: list[float] = []
        for r in runs:
            for stamp, at in r.get(stage, {}).items():
                total.append((at - int(stamp)) / 1e6)
                if prev is not None and stamp in r.get(prev, {}):
                    step.append((at - r[prev][stamp]) / 1e6)
        rows[stage] = {
            "total_p50": pct(total, 50),
            "total_p99": pct(total, 99),
            "step_p50": pct(step, 50),
            "step_p99": pct(step, 99),
            "n": len(total),
        }
        row = rows[stage]
        print(
            f"  {stage:10}{row['total_p50']:16.2f}{row['total_p99']:9.2f}"
            f"{row['step_p50']:11.2f}{row['step_p99']:9.2f}{row['n']:7d}"
        )
        prev = stage
    return rows


# ---- the carriers ------------------------------------------------------------------------------


def trace_window(
    tokens: int, rate: float, runs: int, blocking: bool = False, shared_session: bool = False
) -> list[dict[str, dict[str, float]]]:
    """The window and its Xvfb in a session of their own, as bench/window_day_bench.py starts
    them (`shared_session`: in this process's, beside the burners)."""
    from bench.window_day_bench import MODEL, NEW_SESSION, PROMPTS, TURN_ENDS
    from tests.desktop import driver, x11
    from tests.support.scripted_llm import Reply, ScriptedLlmServer

    out: list[dict[str, dict[str, float]]] = []
    xvfb, display = x11.start_xvfb(own_session=not shared_session)
    try:
        with (
            tempfile.TemporaryDirectory(prefix="pixel-trace-", dir="/var/tmp") as tmp,
            ScriptedLlmServer() as llm,
        ):
            sock, cwd, trace_file = Path(tmp) / "w.sock", Path(tmp) / "work", Path(tmp) / "trace.json"
            cwd.mkdir()
            cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--host",
                "window",
                "--webui",
                str(ROOT / "webui"),
                "--real-host",
                "--data-dir",
                str(Path(tmp) / "data"),
                "--provider",
                "openai-compatible",
                "--base-url",
                llm.base_url,
                "--model",
                MODEL,
            ]
            env = {
                **os.environ,
                **driver.window_env(display, sock),
                "PYTHONPATH": str(ROOT),
                ENV: str(trace_file),
            }
            env[BLOCKING] = "1" if blocking else "0"
            app = subprocess.Popen(
                cmd,
                cwd=cwd,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=not shared_session,
            )
            try:
                ready = "document.documentElement.dataset.connection === 'connected'"
                page = driver.connect_ready(
                    sock,
                    f"new Promise(r => {{ const t = () => {ready} ? r(true) : setTimeout(t, 20); t(); }})",
                    timeout=90,
                )
                page.evaluate(PAGE_HOOKS)
                if os.environ.get("PIXEL_TRACE_PAGE_JS"):  # an experiment's extra page script
                    page.evaluate(os.environ["PIXEL_TRACE_PAGE_JS"])
                for i in range(runs + 1):
                    n = 20 if i == 0 else tokens  # the first: a warm-up
                    same = os.environ.get("PIXEL_TRACE_SAME_SESSION") == "1" and i > 0
                    if not same:  # (an experiment: every run in the first session)
                        sid = page.evaluate(NEW_SESSION.replace("CWD", json.dumps(str(cwd))), timeout=120)
                        page.evaluate(f"{TURN_ENDS}({json.dumps(sid)}, 0)", timeout=120)
                    if toggle := os.environ.get("PIXEL_TRACE_TOGGLE_JS"):  # an experiment, alternated
                        page.evaluate(f"({toggle})({json.dumps(i % 2 == 1)})")
                        print(f"  toggle {'on' if i % 2 == 1 else 'off'}")
                    page.evaluate(PAGE_OBSERVER)
                    cpu0 = cpu_by_name(app.pid)
                    llm.enqueue(Reply(stamps=n, delay=1 / rate))
                    page.evaluate(f"{PROMPTS}({json.dumps(sid)}, ['stream stamps'])", timeout=120)
                    ends = i + 1 if os.environ.get("PIXEL_TRACE_SAME_SESSION") == "1" else 1
                    page.evaluate(f"{TURN_ENDS}({json.dumps(sid)}, {ends})", timeout=n / rate + 120)
                    if i:
                        print(f"  cpu s: {cpu_delta(cpu0, cpu_by_name(app.pid))}")
                    time.sleep(1.0)  # the host's trace file is rewritten every 0.5 s
                    marks = merge_marks(json.loads(trace_file.read_text()), page.evaluate(PAGE_MARKS))
                    if i:
                        stamps = set(marks.get("dom", {}))
                        out.append({k: {s: t for s, t in v.items() if s in stamps} for k, v in marks.items()})
                        print_busy(page.evaluate(PAGE_BUSY))
                        dom = sorted((t - int(s)) / 1e6 for s, t in marks.get("dom", {}).items())
                        print(f"  dom p50 {pct(dom, 50):.1f} p99 {pct(dom, 99):.1f}")
            finally:
                app.terminate()
                app.wait(30)
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    return out


def trace_chromium(tokens: int, rate: float, runs: int) -> list[dict[str, dict[str, float]]]:
    from playwright.sync_api import expect, sync_playwright

    from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, fresh_session, open_app, send
    from tests.support.scripted_llm import Reply, ScriptedLlmServer

    out: list[dict[str, dict[str, float]]] = []
    with (
        tempfile.TemporaryDirectory(prefix="pixel-trace-", dir="/var/tmp") as tmp,
        ScriptedLlmServer() as llm,
    ):
        trace_file, work = Path(tmp) / "trace.json", Path(tmp) / "work"
        work.mkdir()
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--host",
            "serve",
            "--data-dir",
            str(Path(tmp) / "data"),
            "--port",
            "0",
            "--provider",
            "openai-compatible",
            "--base-url",
            llm.base_url,
            "--model",
            "scripted-small",
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT), ENV: str(trace_file), "PYTHONUNBUFFERED": "1"}
        env.pop("HARNESSDESK_API_KEY", None)
        app = subprocess.Popen(
            cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        try:
            url = ""
            assert app.stdout is not None
            for line in app.stdout:
                if m := re.search(r"(http://127\.0\.0\.1:\d+/\?token=\S+)", line):
                    url = m.group(1)
                    break
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport=VIEWPORT)
                context.add_init_script(PAGE_HOOKS)
                page = context.new_page()
                open_app(page, url)
                for i in range(runs + 1):
                    n = 20 if i == 0 else tokens
                    fresh_session(page)
                    page.evaluate(PAGE_OBSERVER)
                    cpu0 = {**cpu_by_name(os.getpid()), **cpu_by_name(app.pid)}
                    llm.enqueue(Reply(stamps=n, delay=1 / rate))
                    send(page, "stream stamps")
                    expect(page.get_by_test_id("turn-end")).to_have_count(1, timeout=n / rate * 1000 + 60_000)
                    if i:
                        cpu1 = {**cpu_by_name(os.getpid()), **cpu_by_name(app.pid)}
                        print(f"  cpu s: {cpu_delta(cpu0, cpu1)}")
                    time.sleep(1.0)
                    marks = merge_marks(json.loads(trace_file.read_text()), page.evaluate(PAGE_MARKS))
                    if i:
                        stamps = set(marks.get("dom", {}))
                        out.append({k: {s: t for s, t in v.items() if s in stamps} for k, v in marks.items()})
                        print_busy(page.evaluate(PAGE_BUSY))
                browser.close()
        finally:
            app.terminate()
            app.wait(30)
    return out


def main() -> int:
    if sys.argv[1:2] == ["--host"]:
        return host_main(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--carrier", choices=("window", "chromium", "both"), default="both")
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--burners", type=int, default=0)
    parser.add_argument("--blocking", action="store_true", help="window: also the pusher waiting per push")
    parser.add_argument("--rounds", type=int, default=1, help="alternations of the carriers")
    parser.add_argument(
        "--shared-session", action="store_true", help="window: in this process's session, beside the burners"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    from bench.load import Burners, load_now

    result: dict[str, Any] = {}
    with Burners(args.burners):
        before = load_now()
        for _ in range(args.rounds):
            for carrier in ("chromium", "window", "window-blocking"):
                if args.carrier not in (carrier, "both") and not (
                    args.carrier == "window" and carrier == "window-blocking" and args.blocking
                ):
                    continue
                if carrier == "chromium":
                    runs = trace_chromium(args.tokens, args.rate, args.runs)
                else:
                    runs = trace_window(
                        args.tokens,
                        args.rate,
                        args.runs,
                        blocking=carrier == "window-blocking",
                        shared_session=args.shared_session,
                    )
                title = (
                    f"{carrier}: {args.runs} x {args.tokens} at {args.rate:g}/s, {args.burners} burners (ms)"
                )
                result.setdefault(carrier, []).append(report(title, runs))
        result["load"] = {"before": before, "after": load_now()}
    print(f"load {result['load']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
