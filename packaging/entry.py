"""Frozen entry point: the same `main` as the `harnessdesk` console script.

The Linux window's settings (PYWEBVIEW_GUI=gtk, the DMA-BUF renderer off without a GPU) are
applied by desktop/app.py itself, for a checkout and a bundle alike.
"""

from __future__ import annotations

import os
import sys


def use_system_typelibs() -> None:
    """PyInstaller's gi runtime hook points GI_TYPELIB_PATH into the bundle, which carries no
    typelib (GTK and WebKitGTK are the system's): drop it, so neither the window nor the
    commands the agent runs inherit a path to nowhere."""
    bundled = os.path.join(getattr(sys, "_MEIPASS", ""), "gi_typelibs")
    if os.environ.get("GI_TYPELIB_PATH") == bundled and not os.path.isdir(bundled):
        del os.environ["GI_TYPELIB_PATH"]


if __name__ == "__main__":
    use_system_typelibs()
    from host.procs import run_frozen_helper  # the host's helper processes (grep, supervise)

    code = run_frozen_helper(sys.argv)
    if code is not None:
        sys.exit(code)

    from desktop.cli import main

    sys.exit(main())
