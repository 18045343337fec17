"""The window settles its process's heap once its page is up (desktop/shell.py `_settle`,
docs/decisions/settled-heap.md): the host's and the GUI toolkit's long-lived objects are frozen
out of the collector's full walks. Looked at from outside, through a `sitecustomize` that
reports the real window process's frozen-object count (tests/api/test_settled_heap.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.api.test_settled_heap import WATCHER
from tests.desktop.support import AppFactory, gui_test

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]


@gui_test
def test_the_window_settles_its_heap_once_its_page_is_up(apps: AppFactory, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(WATCHER)
    out = tmp_path / "frozen"
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    app = apps.launch(
        "--webui", str(ROOT / "webui"), "--real-host", env={"PYTHONPATH": path, "HD_FREEZE_OUT": str(out)}
    )
    page = app.page()
    deadline = time.monotonic() + 90
    frozen = 0
    while time.monotonic() < deadline and frozen == 0:
        time.sleep(0.2)
        frozen = int(out.read_text()) if out.exists() else 0
    assert frozen > 20_000
    assert page.evaluate("1 + 1") == 2  # the window still answers after the collection
