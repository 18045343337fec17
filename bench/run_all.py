"""Run every benchmark, write one JSON file, and print each goal as met or missed.

    python bench/run_all.py [--only NAME ...] [--skip NAME ...] [--out bench/results.json]
    python bench/run_all.py --table [--out bench/results.json]    # the README's table, from the file

Each bench runs in its own process with `--json FILE`; its figures go into the output under its
name, with the load average around it (the machine is shared: compare ratios, not seconds).
Any `bench/*_bench.py` not listed in BENCHES (a bench another part of the app adds) runs too,
with its defaults, plus `--json FILE` when its source mentions that option (else only its
printed output is kept). The start-up/bundle bench needs a built bundle
(`python packaging/build.py --installers`); without one it is skipped and said so.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
DEFAULT_OUT = BENCH / "results.json"

BENCHES: dict[str, list[str]] = {
    "paging": ["paging_bench.py"],
    "compaction": ["compaction_bench.py"],
    "history": ["history_bench.py"],
    "open": ["open_bench.py"],
    "pixel": ["pixel_bench.py", "--runs", "3"],
    "relay": ["relay_bench.py", "--runs", "7"],
    "bridge": ["bridge_bench.py"],
    "model": ["model_bench.py", "--runs", "3"],
    "startup": ["bundle_bench.py", "--runs", "5"],
    "sandbox": ["sandbox_bench.py", "--runs", "60"],
    "memory": ["memory_bench.py"],
    "snapshot": ["snapshot_bench.py", "--runs", "21"],
    "finder": ["finder_bench.py"],
    "transcript": ["transcript_bench.py", "--rounds", "3"],
    "window_day": ["window_day_bench.py"],
}
"""name → script and arguments (each also gets `--json FILE`)."""


@dataclass(frozen=True)
class Goal:
    label: str
    bench: str
    measure: Callable[[Any], float | bool]
    target: str
    check: Callable[[Any], bool]
    unit: str = ""
    valid: Callable[[Any], str | None] = lambda _f: None
    """Why the figure means nothing in this run (e.g. a relay reader was cut off), or None."""


def _median(values: list[Any], index: int | None = None) -> float:
    return float(statistics.median(v[index] if index is not None else v for v in values))


def _relay(n: str, key: str) -> Callable[[Any], float]:
    return lambda f: float(f["summary"][n][key])


def _relay_valid(n: str, key: str) -> Callable[[Any], str | None]:
    """A ratio of readers that were cut off or got other text than was sent times a failure."""

    def why(f: Any) -> str | None:
        complete = f["summary"][n]["complete"]
        bad = [kind for kind in key.split("/") if not complete.get(kind, True)]
        return f"{', '.join(bad)} cut off or text not as sent" if bad else None

    return why


def _relay_goal(label: str, n: str, key: str, target: float) -> Goal:
    return Goal(
        label, "relay", _relay(n, key), f"≥ {target}", lambda x: x >= target, valid=_relay_valid(n, key)
    )


def _complete(f: Any) -> bool:
    return all(all(row["complete"].values()) for row in f["summary"].values())


def _sandbox_valid(f: Any) -> str | None:
    return f"no sandbox on this machine: {f['skipped']}" if "skipped" in f else None


def _sandbox_goal(label: str, key: str) -> Goal:
    return Goal(
        label,
        "sandbox",
        lambda f: float(f[key]["added_p50_ms"]),
        "≤ 15",
        lambda x: x <= 15,
        " ms",
        valid=_sandbox_valid,
    )


GOALS = [
    _sandbox_goal("sandbox: added p50 of `true` (bubblewrap vs bare, same run)", "true"),
    _sandbox_goal("sandbox: added p50 of `ls -R`, 2,000 files", "ls_R_2000"),
    Goal(
        "snapshot before a command, 10,000 files / 20 changed (p50)",
        "snapshot",
        lambda f: f["ms"]["snapshot"]["p50"],
        "≤ 150",
        lambda x: x <= 150,
        " ms",
    ),
    _relay_goal("relay raw/sse, N=5,000", "5000", "raw/sse", 0.5),
    _relay_goal("relay raw/sse, N=20,000", "20000", "raw/sse", 0.8),
    _relay_goal("relay raw/bridge, N=5,000", "5000", "raw/bridge", 0.5),
    _relay_goal("relay raw/bridge, N=20,000", "20000", "raw/bridge", 0.5),
    Goal("relay: no reader cut off, every character in order", "relay", _complete, "all complete", bool),
    _relay_goal("bridge/SSE (same window engine), N=5,000", "5000", "bridge/window-sse", 0.9),
    _relay_goal("bridge/SSE (same window engine), N=20,000", "20000", "bridge/window-sse", 0.9),
    Goal(
        "bridge flood events/s vs plain fetch",
        "bridge",
        lambda f: f["flood_ratio"],
        "≥ 0.9",
        lambda x: x >= 0.9,
    ),
    Goal(
        "bundle installed", "startup", lambda f: f["sizes_mb"]["bundle"], "≤ 300", lambda x: x <= 300, " MB"
    ),
    Goal("installer .deb", "startup", lambda f: f["sizes_mb"]["deb"], "≤ 150", lambda x: x <= 150, " MB"),
    Goal(
        "cold start: window shown (frozen, median)",
        "startup",
        lambda f: _median(f["window_s"]["frozen"], 0),
        "≤ 1.0",
        lambda x: x <= 1.0,
        " s",
    ),
    Goal(
        "cold start: bridge ready (frozen, median)",
        "startup",
        lambda f: _median(f["window_s"]["frozen"], 1),
        "≤ 3.0",
        lambda x: x <= 3.0,
        " s",
    ),
    Goal(
        "cold start: host's first answer through the bridge (frozen, median)",
        "startup",
        lambda f: _median(f["window_s"]["frozen"], 2),
        "≤ 3.0",
        lambda x: x <= 3.0,
        " s",
    ),
    Goal(
        "cold start: serve ready (frozen, median)",
        "startup",
        lambda f: _median(f["serve_s"]["frozen"], 0),
        "≤ 0.5",
        lambda x: x <= 0.5,
        " s",
    ),
    Goal(
        "model tokens/s, adapter/plain xllamacpp",
        "model",
        lambda f: f["summary"]["adapter/plain"],
        "≥ 0.9",
        lambda x: x >= 0.9,
    ),
    Goal(
        "model tokens/s, whole turn/plain xllamacpp",
        "model",
        lambda f: f["summary"]["turn/plain"],
        "≥ 0.9",
        lambda x: x >= 0.9,
    ),
    Goal("history paging, 100k/100 events", "paging", lambda f: f["max_ratio"], "≤ 2", lambda x: x <= 2),
    Goal(
        "200-turn /compact: model requests",
        "compaction",
        lambda f: f["max_requests"],
        "= 1",
        lambda x: x == 1,
    ),
    Goal(
        "history over HTTP: first page (50 messages) of a 1,000-turn session",
        "open",
        lambda f: f["rows"]["first page"]["ms"],
        "≤ 13",
        lambda x: x <= 13,
        " ms",
    ),
    Goal(
        "history over HTTP: a whole 1,000-turn session (14,000 events)",
        "open",
        lambda f: f["rows"]["whole session"]["ms"],
        "≤ 200",
        lambda x: x <= 200,
        " ms",
    ),
    Goal(
        "token to pixel in Chromium, 100 tokens/s (p50)",
        "pixel",
        lambda f: f["dom"]["p50"],
        "≤ 10",
        lambda x: x <= 10,
        " ms",
        valid=lambda f: f"{f['missing']} stamps never reached the page" if f["missing"] else None,
    ),
    Goal(
        "token to pixel in Chromium, 100 tokens/s (p99)",
        "pixel",
        lambda f: f["dom"]["p99"],
        "≤ 30",
        lambda x: x <= 30,
        " ms",
        valid=lambda f: f"{f['missing']} stamps never reached the page" if f["missing"] else None,
    ),
    Goal(
        "session.list of 2,000 sessions",
        "history",
        lambda f: f["rows"]["list"]["big_ms"],
        "< 100",
        lambda x: x < 100,
        " ms",
    ),
    Goal(
        "host RSS per turn, 1,000 turns of one session (after warm-up and the first backup)",
        "memory",
        lambda f: f["kb_per_turn"],
        "≤ 10",
        lambda x: x <= 10,
        " KB",
    ),
    Goal(
        "host RSS comes back after 50 sessions opened and closed",
        "memory",
        lambda f: f["comes_back"],
        "within 2 MB",
        bool,
    ),
    Goal(
        "@ finder: per keystroke over 100,000 files (p99, typed queries)",
        "finder",
        lambda f: f["p99_ms"],
        "≤ 50",
        lambda x: x <= 50,
        " ms",
    ),
    Goal(
        "search over 1M events (slowest query)",
        "history",
        lambda f: f["search_max_ms"],
        "< 100",
        lambda x: x < 100,
        " ms",
    ),
]


def _transcript_goals() -> list[Goal]:
    """Issue 33, goal 2: a 10,000-message session, per engine (bench/transcript_bench.py)."""
    rows: list[Goal] = []
    for engine, name in (("chromium", "Chromium"), ("window", "window (WebKitGTK)")):
        for key, label, target in (
            ("open_ms", "opens, first screen painted", 500),
            ("jump_ms", "jump to an early search hit", 300),
            ("frame_p99_ms", "scroll frame p99", 16),
        ):
            rows.append(
                Goal(
                    f"10,000 messages in {name}: {label}",
                    "transcript",
                    lambda f, e=engine, k=key: f[e]["big"][k],
                    f"≤ {target} ms",
                    lambda x, t=target: x <= t,
                )
            )
        rows.append(
            Goal(
                f"10,000 messages in {name}: DOM nodes / a 120-message session's",
                "transcript",
                lambda f, e=engine: f[e]["big"]["nodes"] / f[e]["small"]["nodes"],
                "≤ 1.5",
                lambda x: x <= 1.5,
            )
        )
    return rows


GOALS += _transcript_goals()
GOALS += [
    Goal(
        "token to pixel in the window, 100 tokens/s (p50)",
        "window_day",
        lambda f: f["pixel"]["window"]["p50"],
        "≤ 10 ms",
        lambda x: x <= 10,
    ),
    Goal(
        "token to pixel in the window, 100 tokens/s (p99)",
        "window_day",
        lambda f: f["pixel"]["window"]["p99"],
        "≤ 30 ms",
        lambda x: x <= 30,
    ),
    Goal(
        "window's web process RSS over a working day (1,000 turns + 50 sessions, peak)",
        "window_day",
        lambda f: f["memory"]["peak_mb"],
        "≤ 400 MB",
        lambda x: x <= 400,
    ),
    Goal(
        "window's web process RSS growth after warm-up (turn 200 to the end)",
        "window_day",
        lambda f: f["memory"]["growth_after_warm"],
        "≤ 0.1",
        lambda x: x <= 0.1,
    ),
]


def discover() -> dict[str, list[str]]:
    """BENCHES plus any other `*_bench.py` in bench/ (run with its defaults)."""
    known = {args[0] for args in BENCHES.values()}
    extra = {
        p.name.removesuffix("_bench.py"): [p.name]
        for p in sorted(BENCH.glob("*_bench.py"))
        if p.name not in known
    }
    return {**BENCHES, **extra}


def run_one(name: str, args: list[str]) -> dict[str, Any]:
    """Run one bench with `--json`; its figures, output tail, time and the load around it."""
    if name == "startup" and not (ROOT / "dist" / "harnessdesk" / "harnessdesk").exists():
        return {"skipped": "no bundle: run `python packaging/build.py --installers` first"}
    script = BENCH / args[0]
    with tempfile.TemporaryDirectory(prefix="run-all-") as tmp:
        out_file = Path(tmp) / f"{name}.json"
        json_args = ["--json", str(out_file)] if "--json" in script.read_text(encoding="utf-8") else []
        load_before = os.getloadavg()
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, str(script), *args[1:], *json_args], cwd=ROOT, capture_output=True, text=True
        )
        entry: dict[str, Any] = {
            "command": " ".join(["python", f"bench/{args[0]}", *args[1:]]),
            "seconds": round(time.monotonic() - started, 1),
            "load": {
                "before": [round(x, 1) for x in load_before],
                "after": [round(x, 1) for x in os.getloadavg()],
            },
            "output": proc.stdout.strip().splitlines()[-30:],
        }
        if proc.returncode != 0:
            entry["error"] = f"exit {proc.returncode}: " + proc.stderr.strip()[-1500:]
        if out_file.exists():
            entry["figures"] = json.loads(out_file.read_text(encoding="utf-8"))
        return entry


def evaluate(results: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for goal in GOALS:
        figures = results.get(goal.bench, {}).get("figures")
        row: dict[str, Any] = {"goal": goal.label, "target": f"{goal.target}{goal.unit}", "bench": goal.bench}
        try:
            value = goal.measure(figures)
            row["value"] = value if isinstance(value, bool) else round(float(value), 3)
            row["met"] = bool(goal.check(value))
            if (why := goal.valid(figures)) is not None:
                row["met"], row["invalid"] = False, why
        except (KeyError, TypeError, ValueError, IndexError, statistics.StatisticsError):
            row["value"], row["met"] = None, None  # not measured in this run
        rows.append(row)
    return rows


def table(data: dict[str, Any]) -> str:
    """The README's table: goal, target, measured, met."""
    lines = ["| goal | target | measured | met |", "|---|---|---|---|"]
    for row in data["goals"]:
        value = row["value"]
        shown = (
            "not measured"
            if value is None
            else ("yes" if value is True else "no" if value is False else f"{value:g}")
        )
        unit = row["target"].split(" ")[-1] if value is not None and not isinstance(value, bool) else ""
        unit = unit if unit in ("MB", "s", "ms") else ""
        met = {True: "✅", False: "❌", None: "-"}[row["met"]]
        if row.get("invalid"):
            shown, unit = "not valid:", row["invalid"]
        lines.append(f"| {row['goal']} | {row['target']} | {shown} {unit}".rstrip() + f" | {met} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", help="run only these benches")
    parser.add_argument("--skip", nargs="+", default=[], help="leave these benches out")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--table", action="store_true", help="print the README table from --out and exit")
    args = parser.parse_args()
    if args.table:  # goals judged again: a goal changed since the run applies to its figures
        data = json.loads(args.out.read_text(encoding="utf-8"))
        print(table({**data, "goals": evaluate(data["benches"])}))
        return 0
    benches = {
        k: v for k, v in discover().items() if (not args.only or k in args.only) and k not in args.skip
    }
    previous: dict[str, Any] = {}
    if args.only and args.out.exists():  # a partial run keeps the other benches' last figures
        previous = json.loads(args.out.read_text(encoding="utf-8")).get("benches", {})
    results = dict(previous)
    for name, bench_args in benches.items():
        print(f"== {name}: {' '.join(bench_args)}", flush=True)
        results[name] = run_one(name, bench_args)
        results[name]["when"] = time.strftime("%Y-%m-%d %H:%M")
        for line in results[name].get("output", [])[-12:]:
            print(f"   {line}")
        if "error" in results[name] or "skipped" in results[name]:
            print(f"   !! {results[name].get('error') or results[name].get('skipped')}")
    data = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "benches": results,
        "goals": evaluate(results),
    }
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}\n")
    print(table(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
