"""Every `bench/*.py` still loads: its imports resolve and its top level runs (without `__main__`,
so no bench is run). The benches are not part of the suite, so a helper they import that moved in
the tests (as `free_port` did) would otherwise show only as a failed row in `bench/run_all.py`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

LOAD_EACH = """
import runpy, sys, traceback
from pathlib import Path
from typing import Any
paths = sorted(Path("bench").glob("*.py"))
failed = []
for path in paths:
    try:
        runpy.run_path(str(path), run_name="bench_load_check")
    except BaseException:
        failed.append(f"{path}:\\n{traceback.format_exc(limit=3)}")
print(len(paths))
print("\\n".join(failed))
"""


def test_every_bench_script_loads() -> None:
    # a process of its own: the benches import GTK, Playwright and the app at their top level
    done = subprocess.run(
        [sys.executable, "-c", LOAD_EACH], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    count, _, failed = done.stdout.partition("\n")
    assert int(count) >= 20, f"only {count} bench scripts found"
    assert not failed.strip(), failed


def test_readme_table_is_generated_from_the_results() -> None:
    # the README's benchmark table is bench/run_all.py's rendering of bench/results.json, never
    # copied by hand: a figure changed in one place only fails here
    sys.path.insert(0, str(ROOT))
    from bench import run_all

    data = json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = readme.find(run_all.START), readme.find(run_all.END)
    assert 0 <= start < end, "README.md lost its bench-table markers"
    shown = readme[start : end + len(run_all.END)]
    assert shown == run_all.readme_block(data), (
        "README.md's table differs from bench/results.json: run `python bench/run_all.py --write-readme`"
    )


def test_every_goal_reads_a_bench_run_all_runs() -> None:
    sys.path.insert(0, str(ROOT))
    from bench import run_all
    from bench.goals import GOALS

    benches = set(run_all.discover())
    assert {g.bench for g in GOALS} <= benches
    assert len({g.label for g in GOALS}) == len(GOALS), "two goal rows share a label"


def test_the_median_interval_and_the_verdict() -> None:
    sys.path.insert(0, str(ROOT))
    from bench.stats import median_interval, verdict

    # five runs: only (min, max) holds the median with >= 90 % (93.75 %)
    assert median_interval([5, 1, 4, 2, 3]) == (1, 5)
    # nine runs: (x2, x8) holds it with 96 %; (x3, x7) only with 82 %
    assert median_interval(list(range(1, 10))) == (2, 8)
    assert median_interval([7.0]) == (7.0, 7.0)
    assert verdict([1, 2, 3], "<=", 5) is True
    assert verdict([6, 7, 8], "<=", 5) is False
    assert verdict([4, 5, 6], "<=", 5) is None  # the target inside the interval: too close to call
    assert verdict([0.9, 0.95, 1.0], ">=", 0.8) is True
    assert verdict([1, 1], "==", 1) is True
    assert verdict([2, 2], "==", 1) is False


def test_no_goal_flips_on_a_slow_run_of_five() -> None:
    # one outlier run among five moves the median's interval, not the verdict to its opposite
    sys.path.insert(0, str(ROOT))
    from bench.stats import verdict

    steady = [0.85, 0.86, 0.88, 0.9, 0.91]
    assert verdict(steady, ">=", 0.8) is True
    assert verdict([0.3, *steady[1:]], ">=", 0.8) is None


def test_the_suite_row_counts_only_a_passing_run_on_a_quiet_machine() -> None:
    # the README's suite time is a measured run of ./scripts/test.sh (bench/suite_bench.py); a run
    # on a busy machine or with failures is shown with why it does not count, never as met
    sys.path.insert(0, str(ROOT))
    from bench import run_all, suite_bench

    counted = suite_bench.counts("...\n== 2191 passed, 16 skipped, 3 warnings in 1184.21s (0:19:44) ==\n")
    # ./scripts/test.sh runs pytest with -q: its last line has no `=` frame
    bare = suite_bench.counts("FAILED t.py::t\n3 failed, 2282 passed, 16 skipped in 919.77s (0:15:19)\n")
    assert (bare["failed"], bare["passed"], bare["pytest_seconds"]) == (3, 2282, 919.77)
    assert counted == {"pytest_seconds": 1184.21, "passed": 2191, "skipped": 16}
    figures = {"wall_s": 540.0, "exit": 0, "workers": 3, "cpus": 2, "quiet_load": 1.0, **counted}
    label = "the test suite (`./scripts/test.sh`), wall time on a quiet machine"

    def row(**changed: Any) -> dict[str, Any]:
        benches = {"suite": {"figures": {**figures, **changed}, "when": "2026-12-06 16:00"}}
        return next(r for r in run_all.evaluate(benches) if r["goal"] == label)

    assert row(load_before=[0.3, 0.2, 0.1])["met"] is True
    assert row(load_before=[0.3, 0.2, 0.1], wall_s=660.0)["met"] is False
    busy = row(load_before=[5.2, 3.0, 2.0])
    assert busy["met"] is False and "busy" in busy["note"]
    failed = row(load_before=[0.3, 0.2, 0.1], exit=1, failed=2)
    assert failed["met"] is False and "did not pass" in failed["note"]


def test_the_window_day_breakdown_adds_up_to_the_rss() -> None:
    # bench/window_day_bench.py splits the web process's RSS by kind of mapping and computes the
    # footprint WebKit's memory policy compares with its limit; read here on this very process
    sys.path.insert(0, str(ROOT))
    from bench.window_day_bench import SMAPS_KINDS, rss_mb, smaps_breakdown, smaps_kind

    block = bytearray(32 << 20)  # 32 MB of private anonymous pages, touched
    block[::4096] = b"x" * len(block[::4096])
    kinds = smaps_breakdown(os.getpid())
    total = sum(kinds[k] for k in SMAPS_KINDS)
    assert abs(total - rss_mb(os.getpid())) < 0.05 * total, (total, kinds)
    assert kinds["libraries"] > 1  # the interpreter's own shared objects
    assert kinds["anon"] + kinds["heap"] >= 32
    assert (
        32 <= kinds["footprint"] <= kinds["anon"] + kinds["heap"] + kinds["stack"] + kinds["anon rwx (JIT)"]
    )
    assert smaps_kind("/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1", "r-xp") == "libraries"
    assert smaps_kind("", "rwxp") == "anon rwx (JIT)"
    assert smaps_kind("/memfd:wayland-shm (deleted)", "rw-s") == "shm/gpu"
    del block
