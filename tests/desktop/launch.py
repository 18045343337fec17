"""`python -m tests.desktop.launch [--webui DIR] [--real-host] [harnessdesk args]`: the real CLI.

The window loads tests/desktop/page/ unless `--webui DIR` names another folder (e.g. webui/);
the host is tests/desktop/hostapp.py unless `--real-host` keeps the app's own `build_host`.
"""

from __future__ import annotations

import faulthandler
import signal
import sys
from pathlib import Path

from desktop.app import build_host
from desktop.cli import main
from tests.desktop.hostapp import build_test_host

PAGE = Path(__file__).resolve().parent / "page"


def run(argv: list[str]) -> int:
    webui, factory = PAGE, build_test_host
    if argv[:1] == ["--webui"]:
        webui, argv = Path(argv[1]).resolve(), argv[2:]
    if argv[:1] == ["--real-host"]:
        factory, argv = build_host, argv[1:]  # type: ignore[assignment]
    return main(argv, host_factory=factory, webui=webui)


if __name__ == "__main__":
    # a failed test asks a live app for every thread's stack without ending it (tests/desktop/
    # conftest.py): was the GTK thread stuck, or the page?
    faulthandler.register(signal.SIGUSR2, all_threads=True)
    sys.exit(run(sys.argv[1:]))
