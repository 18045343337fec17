"""Frozen entry point: the same `main` as the `harnessdesk` console script.

The Linux-only settings a Qt window needs (PYWEBVIEW_GUI=qt, Chromium's --no-sandbox when run
as root) are applied by desktop/app.py itself, for a checkout and a bundle alike.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    from host.procs import run_frozen_helper  # the host's helper processes (grep, supervise)

    code = run_frozen_helper(sys.argv)
    if code is not None:
        sys.exit(code)

    from desktop.cli import main

    sys.exit(main())
