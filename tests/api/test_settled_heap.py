"""The settled heap (host/heap.py, docs/decisions/performance-under-load.md): once a started
host is warm, what it holds for its whole life is frozen out of the collector's full walks, and
garbage made before is collected first, not frozen."""

from __future__ import annotations

import gc
import logging
import os
import time
import weakref
from pathlib import Path

import pytest

from host.fetch.warm import warm_contract
from host.heap import settle_heap, settle_when_warm
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


async def test_the_contract_warms_before_the_heap_settles(monkeypatch: pytest.MonkeyPatch) -> None:
    import host.fetch.warm
    import host.heap

    order: list[str] = []

    async def warm() -> int:
        order.append("warm")
        return await warm_contract()

    def settle() -> int:
        order.append("settle")
        return settle_heap()

    monkeypatch.setattr(host.fetch.warm, "warm_contract", warm)
    monkeypatch.setattr(host.heap, "settle_heap", settle)
    try:
        await settle_when_warm()
        assert order == ["warm", "settle"] and gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()


async def test_a_failed_settling_is_logged_and_raises_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import host.heap

    def broken() -> int:
        raise MemoryError("no room to collect")

    monkeypatch.setattr(host.heap, "settle_heap", broken)
    with caplog.at_level(logging.WARNING, logger="host.heap"):
        await settle_when_warm()
    assert "settling the heap failed: no room to collect" in caplog.text


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
