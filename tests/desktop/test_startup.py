"""The app tells pydantic it has no plugins, so the first validator does not scan every installed
distribution's entry points (docs/decisions.md, "Token to pixel, relay and cold start")."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import importlib.metadata, sys
from pydantic.plugin import _loader
calls = []
real = _loader.entry_points
_loader.entry_points = lambda **kw: calls.append(kw) or real(**kw)
if sys.argv[1] == "app":
    from desktop.startup import skip_pydantic_plugin_scan
    skip_pydantic_plugin_scan()
from contract.sessions import HistoryValue
HistoryValue(events=[], has_more=False)
print(len(calls))
"""


def scans(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", CHECK, mode], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def test_the_first_validator_scans_no_entry_points_after_start_up() -> None:
    assert scans("bare") == 1  # what pydantic does by itself: the check sees the scan
    assert scans("app") == 0
