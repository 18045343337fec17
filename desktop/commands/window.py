"""`harnessdesk [--serve [--port N]] [--remote [USER@]HOST[:PORT]] [PATH]`: the window, the
command that runs when no subcommand is named (docs/architecture.md, "Desktop, command line and
data"). Its options live on the main parser; desktop/app.py opens the window.
"""

from __future__ import annotations

import argparse
from typing import Any

from desktop.i18n import t
from desktop.options import engine_refusal_in_one_line, one_line, port_number


def arguments(parser: argparse.ArgumentParser) -> None:
    """The window's own options, on the main parser (PATH is taken out by desktop/cli.py)."""
    parser.add_argument("--serve", action="store_true", help=t("cli.serve"))
    parser.add_argument("--port", type=port_number, default=0, help=t("cli.port"))
    parser.add_argument("--remote", metavar="[USER@]HOST[:PORT]", help=t("cli.remote"))


def run(args: argparse.Namespace, **window_options: Any) -> int:
    """`window_options` go to `desktop.app.run_window` (tests pass their own host factory)."""
    from desktop.app import WindowError, run_window

    with one_line(WindowError, OSError), engine_refusal_in_one_line():  # a damaged database: one line
        return run_window(args, **window_options)
