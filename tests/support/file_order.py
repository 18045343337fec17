"""Longest test files first (docs/decisions.md, "Longest files first").

The suite runs on several workers with `--dist loadfile`: a file's tests stay on one worker, and a
worker that finishes a file gets the next one in the queue. xdist's own order puts files with many
tests first, which leaves the few files that are one long test each (kill -9 at random points, a
revert of 120 files, 200 turns of snapshots) for the end, where one worker runs them while the
others have nothing left. Here the files are ordered by the seconds they took in a measured run
(tests/support/file_weights.json, written by scripts/weigh_tests.py), longest first, so the short
ones fill the gaps at the end. A file the weights do not know yet counts its tests at the seconds
per test of the known files in its folder (one second per test where its folder has none): a
new folder of quick unit tests then goes late, a new browser file early.
Tests keep their order within a file (module-scoped servers are built once).

The browser files go out before all others (longest first among themselves): a worker then runs
them in one row, with one Playwright driver and one Chromium for all of them, instead of starting
both again for each browser file that follows another kind (tests/browser/streak.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

WEIGHTS = Path(__file__).with_name("file_weights.json")
UNKNOWN_PER_TEST = 1.0
BROWSER = "tests/browser/"


def file_weights() -> dict[str, float]:
    try:
        loaded = json.loads(WEIGHTS.read_text())
    except (OSError, ValueError):
        return {}  # only the order suffers
    return {str(k): float(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}


def longest_first(items: list[pytest.Item], weights: dict[str, float]) -> list[pytest.Item]:
    """`items` grouped by file, files by weight (longest first), each file's tests in order."""
    by_file: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(item.nodeid.split("::", 1)[0], []).append(item)

    known: dict[str, list[float]] = {}  # folder -> [seconds, tests] of its weighed files
    for path, tests in by_file.items():
        if path in weights:
            folder = known.setdefault(path.rpartition("/")[0], [0.0, 0.0])
            folder[0] += weights[path]
            folder[1] += len(tests)

    def weight(path: str) -> float:
        if path in weights:
            return weights[path]
        seconds, tests = known.get(path.rpartition("/")[0], (0.0, 0.0))
        return (seconds / tests if tests else UNKNOWN_PER_TEST) * len(by_file[path])

    def rank(path: str) -> tuple[bool, float]:
        return (not path.startswith(BROWSER), -weight(path))

    ordered = sorted(by_file, key=rank)  # stable: ties keep pytest's order
    return [item for path in ordered for item in by_file[path]]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = longest_first(items, file_weights())
