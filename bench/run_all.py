"""Run every benchmark, write one JSON file, and print each goal as met or missed.

    python bench/run_all.py [--only NAME ...] [--skip NAME ...] [--out bench/results.json]
    python bench/run_all.py --table [--out bench/results.json]    # the README's table, from the file

Each bench runs in its own process with `--json FILE`; its figures go into the output under its
name, with the load average around it (the machine is shared: compare ratios, not seconds).
Any `bench/*_bench.py` not listed in BENCHES (a bench another part of the app adds) runs too,
with its defaults, plus `--json FILE` when its source mentions that option (else only its
printed output is kept). The start-up/bundle bench needs a built bundle
(`python packaging/build.py --installers`); without one it is skipped and said so. The goals
judged are in bench/goals.py.
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))

from bench.goals import GOALS  # noqa: E402  (the goal table: its own module, bench/goals.py)

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
    "terminal": ["terminal_bench.py", "--mb", "50", "--runs", "1"],
}
"""name → script and arguments (each also gets `--json FILE`)."""


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
