"""Frozen entry point: the same `main` as the `harnessdesk` console script, plus the two settings
a Linux bundle needs on every launch (ENVIRONMENT.md): the Qt backend, the only one shipped, and
Chromium's sandbox off when running as root (QtWebEngine refuses to start otherwise)."""

from __future__ import annotations

import os
import sys


def _frozen_defaults() -> None:
    if not sys.platform.startswith("linux"):
        return  # Windows: EdgeChromium, macOS: Cocoa, chosen by pywebview itself
    os.environ.setdefault("PYWEBVIEW_GUI", "qt")
    if os.geteuid() == 0:
        flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--no-sandbox" not in flags.split():
            os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{flags} --no-sandbox".strip()


if __name__ == "__main__":
    _frozen_defaults()
    from desktop.cli import main

    sys.exit(main())
