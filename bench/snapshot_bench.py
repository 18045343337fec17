"""A snapshot before a command, in a 10,000-file repository with 20 changed files, against
baselines measured in the same run (docs/architecture.md, "Snapshots"), and the snapshot after a
step against the way it ran before (docs/decisions.md, "Snapshots: fewer processes per step").

    .venv/bin/python bench/snapshot_bench.py [--files 10000] [--changed 20] [--runs 21] [--json FILE]

Each run changes `--changed` random files, then times, in an order rotated per run so machine
load hits them alike: the product's snapshot before a step (`ShadowRepo.take_in`: what changed
since the last one, stored in the workspace's shadow repository), the snapshot after a step with
its diffs (`after_step`: what a shell command changed, with the hashes and diffs the log keeps),
the same done the old way (`ls-files -m`, a `cat-file` lookup before and after `update-index`,
sizes, contents: kept only in this file, as `old_after`), `git status --porcelain` in the
folder's own repository, a plain stat walk of the folder and one bare `git --version` spawn.
Then the same two "after" paths for one 10 MB file rewritten at the same size (the 200-turn
budget test's step), and the git processes one `around()` spawns each way. Prints p50/p90 in ms
and ratios. The goal is a ratio to `git status --porcelain` in the same folder, run by run (the
snapshot of run i over `git status` of run i; their median ≤ 10x: the former "≤ 150 ms" over
`git status`'s 15 ms on a quiet machine, bench/README.md).
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from host.engine.files.snapshots.after import STATE_CACHE, after_step, found_in
from host.engine.files.snapshots.repo import MAX_PATHS, ShadowRepo, TooLarge
from host.engine.tools.changes import MAX_DIFF_BYTES, state_of

States = dict[str, Any]


def old_step(repo: ShadowRepo) -> list[tuple[str, str | None, str | None]]:
    """The snapshot as it ran before this change: `ls-files -m` (which hashes a file whose size
    did not change), the index's blob ids looked up before and after `update-index`."""
    paths = repo.changed()
    if not paths:
        return []
    if len(paths) > MAX_PATHS:
        raise TooLarge("too many")
    before = repo.lookup(paths)
    repo.update(paths)
    after = repo.lookup(paths)
    return [(p, before[p], after[p]) for p in paths if before[p] != after[p]]


def old_sizes(repo: ShadowRepo, oids: list[str]) -> dict[str, int]:
    data = "".join(f"{o}\n" for o in dict.fromkeys(oids)).encode()
    out = repo._git(["cat-file", "--batch-check=%(objectname) %(objectsize)"], data).decode()
    return {
        p[0]: int(p[1]) for p in (line.split() for line in out.splitlines()) if len(p) == 2 and p[1].isdigit()
    }


def old_after(repo: ShadowRepo, cwd: Path, states: States) -> list[Any]:
    """The snapshot after a step as it ran before: `old_step`, then sizes, then contents."""
    diff = old_step(repo)
    if not diff:
        return []
    sizes = old_sizes(repo, [o for _, b, a in diff for o in (b, a) if o])
    contents = repo.read(o for o, n in sizes.items() if n <= MAX_DIFF_BYTES or o not in states)
    for oid, data in contents.items():
        states[oid] = state_of(data)
    while len(states) > STATE_CACHE:
        states.pop(next(iter(states)))
    return found_in(diff, contents, states, cwd)


@contextmanager
def counted() -> Iterator[list[str]]:
    """The git processes spawned inside the block (their subcommands)."""
    spawned: list[str] = []
    real = subprocess.run

    def run(args: Any, *rest: Any, **kw: Any) -> Any:
        if args[:1] == ["git"]:
            spawned.append(args[3] if args[1:3] == ["-c", "safe.directory=*"] else args[1])
        return real(args, *rest, **kw)

    subprocess.run = run  # type: ignore[assignment]
    try:
        yield spawned
    finally:
        subprocess.run = real  # type: ignore[assignment]


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


def big_file(rng: random.Random) -> bytes:
    """As the 200-turn budget test writes: 10 MB, the first 64 KiB random."""
    return rng.randbytes(64 << 10).ljust(10_000_000, b"\0")


def rotate(kinds: list[str], run: int) -> list[str]:
    return kinds[run % len(kinds) :] + kinds[: run % len(kinds)]


def large_file_runs(
    tmp: Path, runs: int, rng: random.Random
) -> tuple[dict[str, list[float]], dict[str, list[str]]]:
    """One 10 MB file rewritten at the same size before each "after": new path vs old path;
    and the git processes of one around() (the snapshot before, the step, the one after)."""
    work = tmp / "large"
    work.mkdir()
    big = work / "big.bin"
    big.write_bytes(big_file(rng))
    repo = ShadowRepo(tmp / "large-shadow", work)
    repo.ensure()
    repo.take_in()
    states: dict[str, States] = {"after": {}, "after (old)": {}}
    times: dict[str, list[float]] = {"after": [], "after (old)": []}
    for run in range(runs):
        for kind in rotate(list(times), run):
            big.write_bytes(big_file(rng))
            start = time.perf_counter()
            found = (
                after_step(repo, work, 10 << 20, states[kind])
                if kind == "after"
                else old_after(repo, work, states[kind])
            )
            times[kind].append((time.perf_counter() - start) * 1000)
            assert [f.path for f in found] == ["big.bin"], found
    spawns: dict[str, list[str]] = {}
    for kind in times:
        with counted() as spawned:
            if kind == "after":
                repo.take_in()
                big.write_bytes(big_file(rng))
                after_step(repo, work, 10 << 20, states[kind])
            else:
                old_step(repo)
                big.write_bytes(big_file(rng))
                old_after(repo, work, states[kind])
        spawns[kind] = spawned
    return times, spawns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng = random.Random(28)
    kinds = ["snapshot", "after", "after (old)", "git status", "stat walk", "git --version"]
    with tempfile.TemporaryDirectory(prefix="hd-snap-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        paths = make_repo(work, args.files, rng)
        repo = ShadowRepo(Path(tmp) / "shadow", work)
        repo.ensure()
        first = timed(repo.take_in)  # the first snapshot stores the whole folder once
        states: dict[str, States] = {"after": {}, "after (old)": {}}
        times: dict[str, list[float]] = {k: [] for k in kinds}
        status = ["git", "status", "--porcelain"]
        for run in range(args.runs):
            for kind in rotate(kinds, run):
                if kind in ("snapshot", "after", "after (old)"):
                    for path in rng.sample(paths, args.changed):
                        path.write_text(path.read_text() + f"# run {run} {kind}\n")
                start = time.perf_counter()
                if kind == "snapshot":
                    repo.take_in()
                elif kind == "after":
                    found = after_step(repo, work, 10 << 20, states[kind])
                elif kind == "after (old)":
                    found = old_after(repo, work, states[kind])
                elif kind == "git status":
                    subprocess.run(status, cwd=work, capture_output=True)
                elif kind == "stat walk":
                    stat_walk(work)
                else:
                    subprocess.run(["git", "--version"], capture_output=True)
                times[kind].append((time.perf_counter() - start) * 1000)
                if kind.startswith("after"):
                    assert len(found) == args.changed, len(found)
        large, spawns = large_file_runs(Path(tmp), args.runs, rng)
    figures = {k: summary(v) for k, v in times.items()}
    big = {k: summary(v) for k, v in large.items()}
    spawn = figures["git --version"]["p50"]
    result = {
        "files": args.files,
        "changed": args.changed,
        "runs": args.runs,
        "first_snapshot_ms": round(first, 1),
        "ms": figures,
        "large_file_ms": big,
        "git_processes_per_around": {k: len(v) for k, v in spawns.items()},
        "git_processes": spawns,
        "snapshot_vs_git_status": round(figures["snapshot"]["p50"] / figures["git status"]["p50"], 2),
        "ratios": {
            "snapshot/git status": [
                round(a / b, 3) for a, b in zip(times["snapshot"], times["git status"], strict=True)
            ]
        },
        "snapshot_vs_stat_walk": round(figures["snapshot"]["p50"] / figures["stat walk"]["p50"], 2),
        "after_vs_old": round(figures["after"]["p50"] / figures["after (old)"]["p50"], 2),
        "after_in_spawns": round(figures["after"]["p50"] / spawn, 1),
        "after_old_in_spawns": round(figures["after (old)"]["p50"] / spawn, 1),
        "large_after_vs_old": round(big["after"]["p50"] / big["after (old)"]["p50"], 2),
        "load": os.getloadavg(),
    }
    print(f"{args.files:,} files, {args.changed} changed per run, {args.runs} runs")
    print(f"first snapshot (stores the folder once): {first:.0f} ms")
    for name, f in figures.items():
        print(f"  {name:<13} p50 {f['p50']:7.1f} ms   p90 {f['p90']:7.1f} ms")
    print("one 10 MB file rewritten at the same size:")
    for name, f in big.items():
        print(f"  {name:<13} p50 {f['p50']:7.1f} ms   p90 {f['p90']:7.1f} ms")
    for name, spawned in spawns.items():
        print(f"git processes per around(), {name}: {len(spawned)} ({', '.join(spawned)})")
    ratios = result["snapshot_vs_git_status"], result["snapshot_vs_stat_walk"]
    print(f"snapshot / git status: {ratios[0]} x, snapshot / stat walk: {ratios[1]} x")
    print(
        f"after / after (old): {result['after_vs_old']} x ({result['after_in_spawns']} vs"
        f" {result['after_old_in_spawns']} bare git spawns); 10 MB file: {result['large_after_vs_old']} x"
    )
    paired = statistics.median(result["ratios"]["snapshot/git status"])
    print(f"snapshot / git status, median of the runs' pairs: {paired:.2f} x (goal ≤ 10 x)")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
