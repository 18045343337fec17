"""The settled heap (host/heap.py, docs/decisions/performance-under-load.md): once a started
host is warm, what it holds for its whole life is frozen out of the collector's full walks, and
garbage made before is collected first, not frozen."""

from __future__ import annotations

import gc
import os
import time
import weakref
from pathlib import Path

import pytest

from host.fetch.warm import warm_contract
from host.heap import settle_heap
from tests.api.support import start_serve

WATCHER = """\
import gc, os, threading, time

def _watch():
    out = os.environ["HD_FREEZE_OUT"]
    while True:
        with open(out + ".part", "w") as f:
            f.write(str(gc.get_freeze_count()))
        os.replace(out + ".part", out)
        time.sleep(0.1)

threading.Thread(target=_watch, daemon=True).start()
"""
"""A `sitecustomize` that reports the serving process's frozen-object count (the test looks
into the real process from outside; the product has no hook for it)."""


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_settling_collects_the_garbage_first_then_freezes_what_survives() -> None:
    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle only the collector can free
    gone = weakref.ref(a)
    del a, b
    try:
        frozen = settle_heap()
        assert gone() is None
        # the count falls as frozen objects are freed (another thread's, meanwhile): not equal
        assert frozen > 1000 and gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()


async def test_the_contract_warms_before_the_heap_settles() -> None:
    calls: list[int] = []
    steps = await warm_contract(then=lambda: calls.append(1))
    assert steps > 100 and calls == [1]


def test_serve_settles_its_heap_once_it_is_warm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(WATCHER)
    out = tmp_path / "frozen"
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    )
    monkeypatch.setenv("HD_FREEZE_OUT", str(out))
    served = start_serve(tmp_path / "data", "--port", "0")
    try:
        deadline = time.monotonic() + 60
        frozen = 0
        while time.monotonic() < deadline and frozen == 0:
            time.sleep(0.1)
            frozen = int(out.read_text()) if out.exists() else 0
        assert frozen > 20_000, served.later_output
    finally:
        served.stop()
