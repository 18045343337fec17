"""Write tests/support/file_weights.json from a JUnit XML report of a full run: each test file's
seconds (setup, call and teardown of its tests), so the suite can hand the longest files to the
workers first (tests/support/file_order.py; docs/decisions.md, "Longest files first").

    .venv/bin/pytest -n 3 --dist loadfile --junitxml=/tmp/run.xml ...
    .venv/bin/python scripts/weigh_tests.py /tmp/run.xml
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "support" / "file_weights.json"


def weigh(report: Path) -> dict[str, float]:
    """Seconds per test file (paths relative to the repository, as pytest names them)."""
    seconds: Counter[str] = Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname") or ""
        parts = module.split(".")
        while parts and not parts[-1].startswith("test_"):
            parts.pop()  # a test class's name follows its module's
        if parts:
            seconds["/".join(parts) + ".py"] += float(case.get("time") or 0.0)
    return {path: round(total, 1) for path, total in sorted(seconds.items())}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    weights = weigh(Path(argv[1]))
    OUT.write_text(json.dumps(weights, indent=1) + "\n")
    print(f"{len(weights)} files, {sum(weights.values()) / 60:.1f} min in all -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
