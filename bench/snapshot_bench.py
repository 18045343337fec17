"""A snapshot before a command, in a 10,000-file repository with 20 changed files, against
baselines measured in the same run (docs/architecture.md, "Snapshots").

    .venv/bin/python bench/snapshot_bench.py [--files 10000] [--changed 20] [--runs 21] [--json FILE]

Each run changes `--changed` random files, then times, in an interleaved order so machine load
hits them alike: the product's snapshot (`ShadowRepo.step`: what changed since the last one,
stored in the workspace's shadow repository; the step before every command), the snapshot after a
step with its diffs (`_after`: what a shell command changed, with the hashes and diffs the log
keeps), `git status --porcelain` in the folder's own repository, and a plain stat walk of the
folder. Prints p50/p90 in ms and the ratios to the baselines; the goal is snapshot p50 ≤ 150 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from host.engine.snapshots.repo import ShadowRepo
from host.engine.snapshots.after import after_step as _after


def make_repo(root: Path, files: int, rng: random.Random) -> list[Path]:
    paths = []
    per_dir = 100
    for i in range(files):
        folder = root / f"pkg{i // per_dir:03}" / ("sub" if i % 3 else "")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"mod{i:05}.py"
        path.write_text("".join(f"def f{n}_{i}():\n    return {rng.randrange(10**6)}\n" for n in range(20)))
        paths.append(path)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "node_modules" / "dep").mkdir(parents=True)
    for n in range(200):
        (root / "node_modules" / "dep" / f"i{n}.js").write_text("module.exports = 1;\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return paths


def stat_walk(root: Path) -> int:
    n = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", "node_modules")]
        for name in names:
            os.lstat(os.path.join(folder, name))
            n += 1
    return n


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p90": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))], 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng = random.Random(28)
    with tempfile.TemporaryDirectory(prefix="hd-snap-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        paths = make_repo(work, args.files, rng)
        repo = ShadowRepo(Path(tmp) / "shadow", work)
        repo.ensure()
        first = timed(repo.step)  # the first snapshot stores the whole folder once
        states: dict = {}
        times: dict[str, list[float]] = {"snapshot": [], "after": [], "git status": [], "stat walk": []}
        status = ["git", "status", "--porcelain"]
        for run in range(args.runs):
            for kind in ("snapshot", "after"):
                for path in rng.sample(paths, args.changed):
                    path.write_text(path.read_text() + f"# run {run} {kind}\n")
                if kind == "snapshot":
                    times[kind].append(timed(repo.step))
                else:
                    start = time.perf_counter()
                    found = _after(repo, work, 10 << 20, states)
                    times[kind].append((time.perf_counter() - start) * 1000)
                    assert len(found) == args.changed, len(found)
            times["git status"].append(timed(lambda: subprocess.run(status, cwd=work, capture_output=True)))
            times["stat walk"].append(timed(lambda: stat_walk(work)))
    figures = {k: summary(v) for k, v in times.items()}
    result = {
        "files": args.files,
        "changed": args.changed,
        "runs": args.runs,
        "first_snapshot_ms": round(first, 1),
        "ms": figures,
        "snapshot_vs_git_status": round(figures["snapshot"]["p50"] / figures["git status"]["p50"], 2),
        "snapshot_vs_stat_walk": round(figures["snapshot"]["p50"] / figures["stat walk"]["p50"], 2),
        "load": os.getloadavg(),
    }
    print(f"{args.files:,} files, {args.changed} changed per run, {args.runs} runs")
    print(f"first snapshot (stores the folder once): {first:.0f} ms")
    for name, f in figures.items():
        print(f"  {name:<11} p50 {f['p50']:7.1f} ms   p90 {f['p90']:7.1f} ms")
    ratios = result["snapshot_vs_git_status"], result["snapshot_vs_stat_walk"]
    print(f"snapshot / git status: {ratios[0]} x, snapshot / stat walk: {ratios[1]} x")
    print(f"goal snapshot p50 ≤ 150 ms: {'met' if figures['snapshot']['p50'] <= 150 else 'missed'}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
