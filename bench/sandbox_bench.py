"""What the sandbox adds to a command: a sandboxed `true` and a sandboxed `ls -R` of a 2,000-file
tree against the same commands unsandboxed, interleaved in one run (the machine is shared: the
baseline is measured beside each sandboxed run, so load moves both).

The goal is a ratio: each sandboxed run over the bare run beside it, the median of those pairs
(≤ 20x for `true`, ≤ 9x for `ls -R`: the former "≤ 15 ms added" over the bare commands' p50 on a
quiet machine, 0.8 ms and 1.8 ms; bench/README.md).

The sandboxed run is the product's: `wrap()` is called for every run (the masks and the
protected entries are worked out each time, as the bash tool does), then bubblewrap starts the
command with the full policy (namespaces, masks, read-only binds, no network).

Printed beside it, not judged: bubblewrap's floor, `bwrap --ro-bind / / CMD` (a user and a mount
namespace, the root read-only, nothing else), in the same rotation. floor/bare is what any
bubblewrap sandbox costs here; product/floor is ours (the policy's namespaces, mounts and masks,
and `wrap()`).

    .venv/bin/python bench/sandbox_bench.py [--runs 60] [--json FILE]
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from host.engine.sandbox import SandboxPolicy, reset_support, support, wrap
from host.engine.sandbox.bwrap import BWRAP
from host.engine.sandbox.probe import FORCE_ENV

FILES = 2_000


def make_tree(root: Path) -> None:
    """2,000 small files in 40 folders of 50, with a .git like a real project's."""
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    for d in range(FILES // 50):
        folder = root / "src" / f"pkg{d:02d}"
        folder.mkdir(parents=True)
        for f in range(50):
            (folder / f"mod{f:02d}.py").write_text("x = 1\n")


def timed(run: Callable[[], None]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000


def measure(argv: list[str], policy: SandboxPolicy, runs: int) -> dict[str, Any]:
    def bare() -> None:
        subprocess.run(argv, cwd=policy.workspace, stdout=subprocess.DEVNULL, check=True)

    def sandboxed() -> None:
        subprocess.run(wrap(argv, policy), cwd=policy.workspace, stdout=subprocess.DEVNULL, check=True)

    def floor() -> None:
        subprocess.run(
            [BWRAP, "--ro-bind", "/", "/", "--", *argv],
            cwd=policy.workspace,
            stdout=subprocess.DEVNULL,
            check=True,
        )

    kinds: dict[str, Callable[[], None]] = {"bare": bare, "sandboxed": sandboxed, "floor": floor}
    for run in kinds.values():  # warm the page cache and the probe
        run()
    times: dict[str, list[float]] = {name: [] for name in kinds}
    order = list(kinds)
    for i in range(runs):
        for name in order[i % 3 :] + order[: i % 3]:  # who goes first rotates
            times[name].append(timed(kinds[name]))
    plain, boxed, least = times["bare"], times["sandboxed"], times["floor"]
    p50_plain, p50_boxed = statistics.median(plain), statistics.median(boxed)
    ratios = [b / p for b, p in zip(boxed, plain, strict=True) if p > 0]
    return {
        "p50_ms": {
            "unsandboxed": round(p50_plain, 2),
            "sandboxed": round(p50_boxed, 2),
            "floor": round(statistics.median(least), 2),
        },
        "added_p50_ms": round(p50_boxed - p50_plain, 2),
        "ratio": round(statistics.median(ratios), 2),
        "ratios": [round(r, 3) for r in ratios],
        "floor_ratio": round(statistics.median(f / p for f, p in zip(least, plain, strict=True) if p > 0), 2),
        "over_floor": round(statistics.median(b / f for b, f in zip(boxed, least, strict=True) if f > 0), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ.pop(FORCE_ENV, None)
    reset_support()
    found = support()
    if not found.available:
        print(f"no sandbox here: {found.reason}")
        if args.json:
            args.json.write_text(json.dumps({"skipped": found.reason}))
        return 0
    with tempfile.TemporaryDirectory(prefix="sandbox-bench-", dir="/var/tmp") as tmp:
        root = Path(tmp)
        make_tree(root)
        data = Path(tempfile.mkdtemp(prefix="data-", dir=tmp))
        policy = SandboxPolicy(root, write=True, network=False, data_dir=data)
        figures = {
            "sandbox": found.reason,
            "runs": args.runs,
            "true": measure(["/bin/true"], policy, args.runs),
            "ls_R_2000": measure(["/bin/ls", "-R", str(root)], policy, args.runs),
            "load_average": os.getloadavg(),
        }
    for name in ("true", "ls_R_2000"):
        row = figures[name]
        print(
            f"{name:10}  unsandboxed p50 {row['p50_ms']['unsandboxed']:7.2f} ms   sandboxed p50"
            f" {row['p50_ms']['sandboxed']:7.2f} ms   added {row['added_p50_ms']:6.2f} ms"
            f"   sandboxed/bare (median of pairs) {row['ratio']:.2f}x"
        )
        print(
            f"{'':10}  bwrap's floor p50 {row['p50_ms']['floor']:7.2f} ms"
            f"   floor/bare {row['floor_ratio']:.2f}x   sandboxed/floor {row['over_floor']:.2f}x (not judged)"
        )
    print(f"({figures['sandbox']}; load average {figures['load_average'][0]:.1f})")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
