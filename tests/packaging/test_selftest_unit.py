"""`doctor --self-test` pieces that run without the model; the full turn is `model`-marked."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from desktop import selftest
from tests.packaging.conftest import ROOT


def event(kind: str, **data: object) -> SimpleNamespace:
    return SimpleNamespace(type=kind, data=data)


def test_events_fold_into_an_outcome() -> None:
    outcome = selftest.Outcome()
    for text in ("Blue", " sky."):
        assert not selftest._on_event(
            event("assistant/chunk", chunk={"type": "text-delta", "text": text}), outcome, 0
        )
    assert not selftest._on_event(
        event("assistant/chunk", chunk={"type": "reasoning-delta", "text": "x"}), outcome, 0
    )
    assert selftest._on_event(event("turn/end", reason={"kind": "completed"}), outcome, 0)
    assert (outcome.chunks, outcome.text, outcome.end) == (2, "Blue sky.", "completed")
    assert outcome.first_chunk_s is not None


def test_source_checkout_has_the_window_files() -> None:
    assert selftest.check_files() == []


@pytest.mark.model
def test_self_test_passes_from_the_source_checkout() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "desktop", "doctor", "--self-test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "self-test: OK" in result.stdout
