"""The whole test suite's wall time: `./scripts/test.sh` run once, end to end.

    python bench/suite_bench.py [--workers N] [--weigh] [--json FILE]

Issue 48's goal is the suite in ≤ 10 min on the 2-core development machine with nothing else
running, and the README's figure measured, not hoped. This bench runs exactly what a developer
runs (`./scripts/test.sh`: the contract and docs checks, ruff, mypy, the JS units and pytest on
the xdist workers) and records its wall time, pytest's own counts and time, the worker count,
the CPU count and the load average before and after. A time is what the machine's load moves
and the suite has no baseline to divide by, so the goal row (bench/goals.py) is judged only on
a run that started on a quiet machine (1-minute load ≤ `QUIET_LOAD`) and passed; any other run
is shown with why it does not count.

`--weigh` also writes tests/support/file_weights.json from the run's JUnit report
(scripts/weigh_tests.py), so the next run hands the longest files out first by this run's costs
(docs/decisions/longest-files-first.md). `bench/run_all.py` runs this bench only when named:

    .venv/bin/python bench/run_all.py --only suite --write-readme
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUIET_LOAD = 1.0
"""The 1-minute load average at the start of a run that counts as "no other load" on 2 cores."""
SUMMARY = re.compile(
    r"^=* ?(?P<counts>\d+ (?:passed|failed|skipped|errors?)\b.*?) in (?P<seconds>[\d.]+)s", re.M
)
"""pytest's last line: framed by `=` in its default output, bare under `-q` (./scripts/test.sh)."""
COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


def counts(output: str) -> dict[str, Any]:
    """pytest's last summary line (`2191 passed, 16 skipped in 1184.21s (0:19:44)`, `=`-framed or not)."""
    found = SUMMARY.findall(output)
    if not found:
        return {}
    text, seconds = found[-1]
    out: dict[str, Any] = {"pytest_seconds": float(seconds)}
    for number, kind in COUNT.findall(text):
        out[kind.rstrip("s") if kind.startswith("error") else kind] = int(number)
    return out


def run(workers: int | None, junit: Path) -> dict[str, Any]:
    env = dict(os.environ)
    if workers is not None:
        env["HARNESSDESK_TEST_WORKERS"] = str(workers)
    load_before = os.getloadavg()
    started = time.monotonic()
    done = subprocess.run(
        ["./scripts/test.sh", f"--junitxml={junit}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    wall = time.monotonic() - started
    return {
        "wall_s": round(wall, 1),
        "exit": done.returncode,
        "workers": int(env.get("HARNESSDESK_TEST_WORKERS", "4")),
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "quiet_load": QUIET_LOAD,
        **counts(done.stdout),
        "tail": done.stdout.strip().splitlines()[-15:],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, help="xdist workers (default: scripts/test.sh's)")
    parser.add_argument("--weigh", action="store_true", help="rewrite tests/support/file_weights.json")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="suite-bench-") as tmp:
        junit = Path(tmp) / "suite.xml"
        figures = run(args.workers, junit)
        if args.weigh and junit.exists():
            weigh = [sys.executable, "scripts/weigh_tests.py", str(junit)]
            weighed = subprocess.run(weigh, cwd=ROOT, capture_output=True, text=True)
            figures["weighed"] = (weighed.stdout or weighed.stderr).strip()
    print("\n".join(figures["tail"]))
    print(
        f"suite: {figures['wall_s'] / 60:.1f} min wall (exit {figures['exit']}), {figures['workers']} workers"
        f" on {figures['cpus']} CPUs, 1-minute load {figures['load_before'][0]} before,"
        f" {figures['load_after'][0]} after"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
