"""`harnessdesk [--serve [--port N]] [--remote [USER@]HOST[:PORT]] [PATH]`: the window, the
command that runs when no subcommand is named (docs/architecture.md, "Desktop, command line and
data"). Its options live on the main parser; desktop/app.py opens the window.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

from desktop.i18n import t
from desktop.options import CliError, one_line, port_number


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


@contextlib.contextmanager
def engine_refusal_in_one_line() -> Iterator[None]:
    """An `EngineError` as the command's one line, without importing the engine's errors first:
    they bring the contract's models, which the window need not load before it is on screen
    (docs/decisions/cold-start.md). One can only be raised once its module is loaded."""
    try:
        yield
    except Exception as exc:
        errors = sys.modules.get("host.engine.errors")
        if errors is not None and isinstance(exc, errors.EngineError):
            raise CliError(str(exc)) from exc
        raise
