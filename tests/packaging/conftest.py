"""Packaging tests: fast recipe checks run everywhere; `packaging`-marked ones build the bundle.

The packaging helpers live in packaging/ as plain modules (the directory name would shadow the
PyPI `packaging` package if imported as a package), so they are loaded from that directory.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
if str(PACKAGING) not in sys.path:
    sys.path.insert(0, str(PACKAGING))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "packaging: builds the PyInstaller bundle (HARNESSDESK_PACKAGING=1)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("HARNESSDESK_PACKAGING") == "1":
        return
    skip = pytest.mark.skip(reason="builds the bundle (minutes): set HARNESSDESK_PACKAGING=1")
    for item in items:
        if item.get_closest_marker("packaging") is not None:
            item.add_marker(skip)
