"""`harnessdesk` / `python -m desktop`: the command line (docs/architecture.md, "Desktop,
command line and data")."""

from __future__ import annotations

import sys

from desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
