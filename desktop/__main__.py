"""`harnessdesk` / `python -m desktop`: the command line (spec 05)."""

from __future__ import annotations

import sys

from desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
