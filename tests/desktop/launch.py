"""`python -m tests.desktop.launch [--webui DIR] [harnessdesk args]`: the real CLI with the test host.

The window loads tests/desktop/page/ unless `--webui DIR` names another folder (e.g. webui/).
"""

from __future__ import annotations

import sys
from pathlib import Path

from desktop.cli import main
from tests.desktop.hostapp import build_test_host

PAGE = Path(__file__).resolve().parent / "page"


def run(argv: list[str]) -> int:
    webui = PAGE
    if argv[:1] == ["--webui"]:
        webui, argv = Path(argv[1]).resolve(), argv[2:]
    return main(argv, host_factory=build_test_host, webui=webui)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
