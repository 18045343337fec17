"""The window over a working day and token to pixel in it (issue 33, goals 4 and 3, window part).

    .venv/bin/python bench/window_day_bench.py [--turns 1000] [--sessions 50] [--tokens 300]

The real app (`tests.desktop.launch --webui webui --real-host`) in a pywebview/WebKitGTK window
under Xvfb, on the scripted OpenAI-compatible provider, driven over its automation socket.

Token to pixel: the provider streams `--tokens` stamped deltas (`<ns>`, its wall-clock write
time) at `--rate` per second; a MutationObserver in the page notes when each stamp first shows
in the assistant's text (bench/pixel_observer.py, shared with bench/pixel_bench.py for Chromium);
beside it, not judged, the animation frame after that (its paint comes after its callbacks). The
baseline, in the same run and interleaved: this process reading the provider's stream directly.
The runs are done twice: on the machine as it is, then with `--burners` busy-loop processes the
bench starts and stops itself (bench/load.py; issue 48: the window at the same load as the
keystroke bench). Goals are judged on the runs' own p50 and p99.

The window and its Xvfb start in a session of their own, as a desktop starts an app and its
display server and as Playwright starts Chromium for bench/pixel_bench.py; the burners stay in
this process's session. With autogrouping (Linux's default) the scheduler shares the CPU between
sessions first, so a window in the burners' session got a fraction of what Chromium got
(docs/decisions/window-keystrokes.md, the same fix for the keystroke bench). `--shared-session`
starts them beside the burners as this bench did before, for a side-by-side run.

Working day: `--turns` turns in one session (prompts queued in batches), then `--sessions`
sessions created, opened with one turn each and left. The WebKitWebProcess's RSS (/proc) is read
after the page connected (the baseline), every 100 turns and every 10 sessions. Goals: at most
400 MB, and flat after warm-up (the first 200 turns): growth ≤ 10 %, the rise of the least-squares
line through the background samples after warm-up over its start (the memory is a saw, grown and
then partly given back by WebKit's memory policy, so the RSS at two labelled points says where the
saw stood, not whether it climbs; that two-point figure, turn 200 to the end, is printed beside
it). `--days N` runs N working days, each in a window of its own after the first window's
token-to-pixel rounds; the goals are judged on the days' median (one day's peak ranged from 331 to
505 MB between runs at the same load).
Beside them, not judged: each sample's RSS by kind of mapping (/proc/<pid>/smaps: the heap,
anonymous memory, executable anonymous memory (the JIT), shared memory, shared libraries, fonts)
and the footprint WebKit's memory policy compares with its limit (the private dirty pages of
anonymous mappings, what WTF's memoryFootprint() reads on Linux); and the day's RSS sampled every
`--sample-every` s on a thread, with the phase it peaked in (the labelled samples fall between
the day's steps).

    --day-only                   the working day alone, no token-to-pixel rounds
    --variant LABEL=CHECKOUT[,KEY=VALUE...] --cycles N
                                 windows compared alternated in one run: each cycle runs each
                                 variant's whole window once, in order (another commit's worktree,
                                 and/or extra environment for the app: JSC_* or WEBKIT_* options)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import Burners, load_now  # noqa: E402
from bench.pixel_observer import (  # noqa: E402
    FRAME_OBSERVER,
    FRAMED,
    OBSERVER,
    SEEN,
    UNOBSERVE,
    latencies,
    raw_run,
)
from tests.desktop import driver, x11  # noqa: E402
from tests.support.scripted_llm import Reply, ScriptedLlmServer  # noqa: E402

MODEL = "scripted-small"
WARM_TURNS = 200
BATCH = 50

NEW_SESSION = """(async () => {
  const {app, client} = window.harnessdesk;
  const r = await client.call("session.create", {cwd: CWD});
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  app.open(r.value.sessionId);
  return r.value.sessionId;
})()"""

PROMPTS = """(async (sid, texts) => {
  const {client} = window.harnessdesk;
  for (const text of texts) {
    const content = [{type: "text", text}];
    const r = await client.call("session.prompt", {sessionId: sid, mode: "queue", content});
    if (!r.ok) throw new Error(JSON.stringify(r.error));
  }
  return true;
})"""

TURN_ENDS = """(async (sid, n) => {
  const m = window.harnessdesk.app.manager;
  const ends = (s) => s.fold.items.filter((i) => i.kind === "turn-end").length;
  const count = () => (m.active?.sessionId === sid ? ends(m.active) : -1);
  await new Promise((resolve) => { const t = () => (count() >= n ? resolve() : setTimeout(t, 50)); t(); });
  return count();
})"""


def web_process_pids(app_pid: int) -> list[int]:
    """The app's WebKitWebProcess pids (descendants of the app), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    todo, found = list(children.get(app_pid, [])), []
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if name.startswith("WebKitWebProces"):
            found.append(pid)
    if not found:
        raise RuntimeError("no WebKitWebProcess under the app")
    return found


def rss_mb(pid: int) -> float:
    """VmRSS of one process (0 when it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1]) / 1024


def web_process_rss_mb(app_pid: int) -> float:
    """RSS of the app's WebKitWebProcess (a descendant of the app), from /proc."""
    return sum(rss_mb(pid) for pid in web_process_pids(app_pid))


SMAPS_KINDS = ("heap", "anon", "anon rwx (JIT)", "shm/gpu", "libraries", "fonts", "other files", "stack")


def smaps_kind(path: str, perms: str) -> str:
    """Which part of a process a mapping is, by its path and permissions."""
    if path == "[heap]":
        return "heap"
    if path.startswith("[stack"):
        return "stack"
    if not path or path.startswith("[anon"):
        return "anon rwx (JIT)" if "x" in perms else "anon"
    if path.startswith(("/dev/shm", "/memfd:", "/SYSV", "/dev/dri")) or path.endswith("(deleted)"):
        return "shm/gpu"
    if ".so" in path.rsplit("/", 1)[-1]:
        return "libraries"
    if path.endswith((".ttf", ".otf", ".ttc", ".pfb", ".woff", ".woff2", "-le64.cache-8", ".cache-9")):
        return "fonts"
    return "other files" if path.startswith("/") else "anon"


def smaps_breakdown(pid: int) -> dict[str, float]:
    """One process's RSS by kind of mapping (MB), and `footprint`: what WebKit's memory-pressure
    policy compares with its limit (private dirty pages of anonymous, heap and stack mappings)."""
    rss: dict[str, float] = dict.fromkeys(SMAPS_KINDS, 0.0)
    footprint, kind, counted = 0.0, "anon", False
    try:
        text = Path(f"/proc/{pid}/smaps").read_text()
    except OSError:
        return {**rss, "footprint": 0.0}
    for line in text.splitlines():
        head = line.split(None, 5)
        if "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
            path = head[5].strip() if len(head) == 6 else ""
            kind = smaps_kind(path, head[1])
            counted = path in ("", "[heap]") or path.startswith("[stack")
        elif head[0] == "Rss:":
            rss[kind] += int(head[1]) / 1024
        elif head[0] == "Private_Dirty:" and counted:
            footprint += int(head[1]) / 1024
    return {**rss, "footprint": footprint}


class RssSampler:
    """Samples the web process's RSS every `every` s on a thread of its own, for the day's true
    peak (the labelled samples fall between the day's steps); at each new peak, and at each
    labelled sample, also its smaps breakdown."""

    def __init__(self, app_pid: int, every: float) -> None:
        self.app_pid, self.every = app_pid, every
        self.phase = "connected"
        self.peak: tuple[float, str, dict[str, float]] = (0.0, "", {})
        self.trace: list[tuple[float, str, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        self._started = time.monotonic()

    def breakdown(self) -> dict[str, float]:
        total: dict[str, float] = {}
        for pid in web_process_pids(self.app_pid):
            for kind, mb in smaps_breakdown(pid).items():
                total[kind] = total.get(kind, 0.0) + mb
        return total

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                mb = web_process_rss_mb(self.app_pid)
            except RuntimeError:
                continue
            self.trace.append((round(time.monotonic() - self._started, 1), self.phase, round(mb, 1)))
            if mb > self.peak[0] + 2:
                self.peak = (mb, self.phase, self.breakdown())
            elif mb > self.peak[0]:
                self.peak = (mb, self.phase, self.peak[2])

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(10)


def pixel_run(
    page: driver.Page, llm: ScriptedLlmServer, cwd: str, tokens: int, rate: float
) -> tuple[list[float], list[float]]:
    """ms from each stamp's write to its first time in the DOM, and to the frame after that."""
    sid = page.evaluate(NEW_SESSION.replace("CWD", json.dumps(cwd)), timeout=120)
    page.evaluate(f"{TURN_ENDS}({json.dumps(sid)}, 0)", timeout=120)
    page.evaluate(OBSERVER)
    page.evaluate(FRAME_OBSERVER)
    llm.enqueue(Reply(stamps=tokens, delay=1 / rate))
    page.evaluate(f"{PROMPTS}({json.dumps(sid)}, ['stream stamps'])", timeout=120)
    page.evaluate(f"{TURN_ENDS}({json.dumps(sid)}, 1)", timeout=tokens / rate + 120)
    return latencies(dict(page.evaluate(SEEN))), latencies(dict(page.evaluate(FRAMED)))


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else float("nan")


def pixel_rounds(
    page: driver.Page, llm: ScriptedLlmServer, cwd: str, args: argparse.Namespace
) -> dict[str, Any]:
    """`args.runs` token-to-pixel runs, each against a raw read of the provider just before it."""
    raw: list[float] = []
    dom: list[float] = []
    frame: list[float] = []
    per_run: dict[str, list[dict[str, float]]] = {"raw": [], "window": []}
    for _ in range(args.runs):
        got_raw = raw_run(llm, args.tokens, args.rate, MODEL)
        got, got_frame = pixel_run(page, llm, cwd, args.tokens, args.rate)
        raw += got_raw
        dom += got
        frame += got_frame
        per_run["raw"].append({"p50": pct(got_raw, 50), "p99": pct(got_raw, 99)})
        per_run["window"].append({"p50": pct(got, 50), "p99": pct(got, 99)})
    return {
        "window": {"p50": pct(dom, 50), "p99": pct(dom, 99), "n": len(dom)},
        "raw": {"p50": pct(raw, 50), "p99": pct(raw, 99), "n": len(raw)},
        "window_frame": {"p50": pct(frame, 50), "p99": pct(frame, 99), "n": len(frame)},
        "missing": args.runs * args.tokens - len(dom),
        "per_run": per_run,
    }


def day(
    page: driver.Page,
    pid: int,
    llm: ScriptedLlmServer,
    cwd: str,
    turns: int,
    sessions: int,
    sample_every: float = 1.0,
) -> dict[str, Any]:
    # the token-to-pixel runs before the day left their MutationObservers on the page: they
    # scanned the last answer's text on every change of the day and held their stamps
    page.evaluate(UNOBSERVE)
    with RssSampler(pid, sample_every) as sampler:
        samples: list[tuple[str, float]] = [("connected", web_process_rss_mb(pid))]
        kinds: list[tuple[str, dict[str, float]]] = [("connected", sampler.breakdown())]

        def sample(label: str) -> None:
            samples.append((label, web_process_rss_mb(pid)))
            kinds.append((label, sampler.breakdown()))

        sid = page.evaluate(NEW_SESSION.replace("CWD", json.dumps(cwd)))
        done = 0
        while done < turns:
            n = min(BATCH, turns - done)
            sampler.phase = f"turns {done + 1}-{done + n}"
            llm.enqueue(
                *[Reply(text=f"Answer {done + i}: " + "a few words of a short reply " * 6) for i in range(n)]
            )
            page.evaluate(
                f"{PROMPTS}({json.dumps(sid)}, {json.dumps([f'question {done + i}' for i in range(n)])})",
                timeout=300,
            )
            page.evaluate(f"{TURN_ENDS}({json.dumps(sid)}, {done + n})", timeout=600)
            done += n
            if done % 100 == 0:
                sample(f"turn {done}")
        for i in range(sessions):
            sampler.phase = f"session {i + 1}"
            other = page.evaluate(NEW_SESSION.replace("CWD", json.dumps(cwd)), timeout=120)
            llm.enqueue(Reply(text=f"Session {i} answers."))
            page.evaluate(f"{PROMPTS}({json.dumps(other)}, ['hello'])", timeout=120)
            page.evaluate(f"{TURN_ENDS}({json.dumps(other)}, 1)", timeout=120)
            if (i + 1) % 10 == 0:
                sample(f"session {i + 1}")
    warm = (
        next(mb for label, mb in samples if label == f"turn {WARM_TURNS}")
        if turns >= WARM_TURNS
        else samples[1][1]
    )
    peak = max(mb for _, mb in samples)
    final = samples[-1][1]
    after_warm = [(t, mb) for t, phase, mb in sampler.trace if past_warm_up(phase, turns)]
    return {
        "samples": samples,
        "baseline_mb": samples[0][1],
        "warm_mb": warm,
        "peak_mb": peak,
        "final_mb": final,
        "growth_after_warm": (final - warm) / warm,
        "growth_trend": trend_growth(after_warm),
        "kinds": kinds,
        "sampled_peak": {"mb": sampler.peak[0], "phase": sampler.peak[1], "kinds": sampler.peak[2]},
        "trace": sampler.trace[:: max(1, len(sampler.trace) // 200)],  # at most ~200 points
    }


def past_warm_up(phase: str, turns: int) -> bool:
    """Whether a background sample's phase ("turns 201-250", "session 3") is after the warm-up."""
    if phase.startswith("session "):
        return True
    if phase.startswith("turns "):
        return int(phase.split()[1].split("-")[0]) > min(WARM_TURNS, turns)
    return False


def trend_growth(points: list[tuple[float, float]]) -> float:
    """The rise of the least-squares line through (time, MB) from its first point to its last,
    over its value at the first: the day's growth however its release cycles fall (the web
    process's memory is a saw: it grows, then its memory policy gives a part back)."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_mb = sum(mb for _, mb in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    slope = sum((t - mean_t) * (mb - mean_mb) for t, mb in points) / var if var else 0.0
    first, last = points[0][0], points[-1][0]
    start = mean_mb + slope * (first - mean_t)
    return slope * (last - first) / start


def day_figures(memory: dict[str, Any]) -> dict[str, Any]:
    """One day's judged figures (what `days` keeps of each)."""
    keys = ("peak_mb", "final_mb", "warm_mb", "growth_after_warm", "growth_trend")
    return {**{k: memory[k] for k in keys}, "sampled_peak_mb": memory["sampled_peak"]["mb"]}


def run_app(args: argparse.Namespace, app_root: Path, app_env: dict[str, str]) -> dict[str, Any]:
    """One window from `app_root` (this checkout, or another commit's): its token-to-pixel rounds
    (unless `--day-only`), then its working day (unless `--pixel-only`)."""
    own = not args.shared_session
    pixel: dict[str, Any] | None = None
    pixel_loaded: dict[str, Any] | None = None
    memory: dict[str, Any] | None = None
    xvfb, display = x11.start_xvfb(own_session=own)
    try:
        with tempfile.TemporaryDirectory() as tmp, ScriptedLlmServer() as llm:
            sock, cwd = Path(tmp) / "window.sock", Path(tmp) / "work"
            cwd.mkdir()
            cmd = [
                "-m",
                "tests.desktop.launch",
                "--webui",
                str(app_root / "webui"),
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
            env = {**os.environ, **driver.window_env(display, sock), "PYTHONPATH": str(app_root), **app_env}
            app = subprocess.Popen(
                [sys.executable, *cmd],
                cwd=cwd,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=args.app_stderr.open("a") if args.app_stderr else subprocess.DEVNULL,
                start_new_session=own,
            )
            try:
                ready = "document.documentElement.dataset.connection === 'connected'"
                page = driver.connect_ready(
                    sock,
                    f"new Promise(r => {{ const t = () => {ready} ? r(true) : setTimeout(t, 20); t(); }})",
                    timeout=90,
                )
                if not args.day_only:
                    raw_run(llm, 20, args.rate, MODEL)  # warm-up
                    pixel_run(page, llm, str(cwd), 20, args.rate)
                    pixel = pixel_rounds(page, llm, str(cwd), args)
                    with Burners(args.burners):
                        before = load_now()
                        pixel_loaded = pixel_rounds(page, llm, str(cwd), args)
                        after = load_now()
                        pixel_loaded["load"] = {"burners": args.burners, "before": before, "after": after}
                if not args.pixel_only:
                    memory = day(page, app.pid, llm, str(cwd), args.turns, args.sessions, args.sample_every)
            finally:
                app.terminate()
                app.wait(30)
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    return {"pixel": pixel, "pixel_loaded": pixel_loaded, "memory": memory}


def print_run(args: argparse.Namespace, got: dict[str, Any]) -> None:
    for title, rounds in (("", got["pixel"]), (f", {args.burners} CPU burners", got["pixel_loaded"])):
        if rounds is None:
            continue
        print(f"token to pixel at {args.rate:.0f} tokens/s, {args.runs} x {args.tokens} tokens (ms){title}")
        print(f"{'':20}{'p50':>8}{'p99':>8}   p99 per run")
        for name in ("window", "raw"):
            runs = ", ".join(f"{r['p99']:.1f}" for r in rounds["per_run"][name])
            print(f"{name:20}{rounds[name]['p50']:8.1f}{rounds[name]['p99']:8.1f}   {runs}")
        framed = rounds["window_frame"]
        print(f"{'window, next frame':20}{framed['p50']:8.1f}{framed['p99']:8.1f}   (not judged)")
        print(f"stamps never seen in the window: {rounds['missing']}")
    memory = got["memory"]
    if memory is not None:
        print(f"WebKitWebProcess RSS over a working day ({args.turns} turns, {args.sessions} sessions)")
        for label, mb in memory["samples"]:
            print(f"  {label:14}{mb:8.1f} MB")
        print("  by kind of mapping (MB of RSS; footprint: what WebKit's memory policy counts)")
        print(f"  {'':14}" + "".join(f"{k[:9]:>10}" for k in (*SMAPS_KINDS, "footprint")))
        for label, kinds in memory["kinds"]:
            cells = "".join(f"{kinds.get(k, 0.0):10.1f}" for k in (*SMAPS_KINDS, "footprint"))
            print(f"  {label:14}{cells}")
        top = memory["sampled_peak"]
        print(
            f"  sampled every {args.sample_every:g} s: peak {top['mb']:.1f} MB during {top['phase']} ("
            + ", ".join(f"{k} {v:.0f}" for k, v in top["kinds"].items())
            + ")"
        )
        print(
            f"peak {memory['peak_mb']:.1f} MB (goal ≤ 400), "
            f"growth after warm-up {memory['growth_trend']:+.1%} (goal ≤ 10 %; "
            f"turn {WARM_TURNS} to the end {memory['growth_after_warm']:+.1%})"
        )


def parse_variant(text: str) -> tuple[str, Path, dict[str, str]]:
    """`LABEL=CHECKOUT[,KEY=VALUE...]`: a window to compare, from a checkout, with extra env."""
    label, _, rest = text.partition("=")
    checkout, *pairs = rest.split(",")
    return label, Path(checkout or ROOT).resolve(), dict(pair.split("=", 1) for pair in pairs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--runs", type=int, default=5, help="token-to-pixel runs (each against a raw one)")
    parser.add_argument(
        "--burners", type=int, default=2, help="CPU burners for the loaded token-to-pixel runs"
    )
    parser.add_argument(
        "--pixel-only", action="store_true", help="token to pixel only, no working day (side-by-side runs)"
    )
    parser.add_argument("--day-only", action="store_true", help="the working day only, no token to pixel")
    parser.add_argument(
        "--shared-session",
        action="store_true",
        help="the window and its Xvfb in this process's session, beside the burners (as before)",
    )
    parser.add_argument(
        "--sample-every", type=float, default=1.0, help="s between the day's background RSS samples"
    )
    parser.add_argument(
        "--variant",
        action="append",
        type=parse_variant,
        default=[],
        metavar="LABEL=CHECKOUT[,KEY=VALUE...]",
        help="compare windows: each cycle runs each variant once, in order (CHECKOUT empty: this one)",
    )
    parser.add_argument("--cycles", type=int, default=1, help="with --variant: rounds of all variants")
    parser.add_argument(
        "--app-stderr", type=Path, help="append the app's stderr here (WebKit's own logs: JSC_logGC=1, say)"
    )
    parser.add_argument(
        "--days", type=int, default=1, help="working days, each in a window of its own (goals: their median)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    started = time.monotonic()
    if not args.variant:
        got = run_app(args, ROOT, {})
        print_run(args, got)
        if got["memory"] is not None:
            got["days"] = [day_figures(got["memory"])]
            day_args = argparse.Namespace(**{**vars(args), "day_only": True})
            for _ in range(args.days - 1):  # each further day in a window of its own
                got["days"].append(day_figures(run_app(day_args, ROOT, {})["memory"]))
            for i, d in enumerate(got["days"], 1):
                print(
                    f"day {i}: peak {d['peak_mb']:.1f} MB (sampled {d['sampled_peak_mb']:.1f}), "
                    f"growth: trend {d['growth_trend']:+.1%}, turn {WARM_TURNS} to the end "
                    f"{d['growth_after_warm']:+.1%}"
                )
        if args.json:
            args.json.write_text(json.dumps(got, indent=1), encoding="utf-8")
        print(f"({time.monotonic() - started:.1f} s)")
        return 0
    results: list[dict[str, Any]] = []
    for cycle in range(args.cycles):
        for label, checkout, extra in args.variant:
            load = load_now()
            got = run_app(args, checkout, extra)
            print(f"== cycle {cycle + 1}, {label} ({checkout}, {extra or 'no extra env'}), load {load}")
            print_run(args, got)
            results.append({"cycle": cycle + 1, "label": label, "load": load, **got})
            print(flush=True)
    print("summary (day: peak of the labelled samples / sampled peak / final, MB; pixel: p50 / p99 ms)")
    for r in results:
        line = f"  cycle {r['cycle']} {r['label']:16} load {r['load'][0]:5.1f}"
        if r["memory"]:
            m = r["memory"]
            line += f"  day {m['peak_mb']:6.1f} / {m['sampled_peak']['mb']:6.1f} / {m['final_mb']:6.1f}"
        for key in ("pixel", "pixel_loaded"):
            if r[key]:
                line += f"  {key} {r[key]['window']['p50']:.1f} / {r[key]['window']['p99']:.1f}"
        print(line)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
