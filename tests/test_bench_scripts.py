"""Every `bench/*.py` still loads: its imports resolve and its top level runs (without `__main__`,
so no bench is run). The benches are not part of the suite, so a helper they import that moved in
the tests (as `free_port` did) would otherwise show only as a failed row in `bench/run_all.py`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOAD_EACH = """
import runpy, sys, traceback
from pathlib import Path
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
