"""The suite hands out its longest files first (tests/support/file_order.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from tests.support.file_order import file_weights, longest_first

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class FakeItem:
    nodeid: str


def order(nodeids: list[str], weights: dict[str, float]) -> list[str]:
    items = cast(Any, [FakeItem(n) for n in nodeids])
    return [i.nodeid for i in longest_first(items, weights)]


def test_files_go_longest_first_and_keep_their_tests_in_order() -> None:
    ids = ["a.py::t1", "a.py::t2", "b.py::t1", "c.py::t1", "c.py::t2", "c.py::t3", "b.py::t2"]
    got = order(ids, {"a.py": 5.0, "b.py": 1.0})
    # a is known to be 5 s; c is unknown: 3 tests at its folder's 6 s / 4 tests, 4.5 s; b is 1 s
    assert got == ["a.py::t1", "a.py::t2", "c.py::t1", "c.py::t2", "c.py::t3", "b.py::t1", "b.py::t2"]


def test_a_new_file_counts_at_its_folders_seconds_per_test() -> None:
    ids = ["f/quick.py::t", "f/new.py::t1", "f/new.py::t2", "g/long.py::t", "h/new.py::t1", "h/new.py::t2"]
    got = order(ids, {"f/quick.py": 0.1, "g/long.py": 1.5})
    # f/new.py: 2 tests at f's 0.1 s each; h/new.py: a folder with no weighed file, 1 s per test
    assert got == [
        *("h/new.py::t1", "h/new.py::t2", "g/long.py::t"),
        *("f/new.py::t1", "f/new.py::t2", "f/quick.py::t"),
    ]


def test_files_of_equal_weight_keep_pytests_order() -> None:
    assert order(["x.py::a", "y.py::a", "z.py::a"], {}) == ["x.py::a", "y.py::a", "z.py::a"]


def test_the_weights_name_test_files_that_exist() -> None:
    weights = file_weights()
    assert len(weights) > 100, "tests/support/file_weights.json is missing or nearly empty"
    gone = [path for path in weights if not (ROOT / path).is_file()]
    assert not gone, f"renamed or removed: run scripts/weigh_tests.py on a full run's JUnit report: {gone}"


def test_browser_files_go_before_all_others_each_kind_longest_first() -> None:
    ids = ["tests/api/a.py::t", "tests/browser/b.py::t", "tests/engine/c.py::t", "tests/browser/d.py::t"]
    weights = {
        "tests/api/a.py": 90.0,
        "tests/browser/b.py": 2.0,
        "tests/engine/c.py": 9.0,
        "tests/browser/d.py": 7.0,
    }
    assert order(ids, weights) == [
        "tests/browser/d.py::t",
        "tests/browser/b.py::t",
        "tests/api/a.py::t",
        "tests/engine/c.py::t",
    ]
