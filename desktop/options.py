"""What every command's arguments share: the common flags, their argparse types, the paths they
name, and the one error a command ends with (docs/architecture.md, "Desktop, command line and data").

Imported while the command line is parsed, before the window starts GTK: standard library and
`desktop.i18n` only (docs/decisions.md, "Performance and packaging").
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop.i18n import t


class CliError(Exception):
    """A user-facing problem: printed as one line, exit code 2."""


@contextlib.contextmanager
def one_line(*errors: type[BaseException]) -> Iterator[None]:
    """Turn `errors` (a leaf's own refusals) into the command's one-line `CliError`."""
    try:
        yield
    except errors as exc:
        raise CliError(str(exc)) from exc


@contextlib.contextmanager
def engine_refusal_in_one_line() -> Iterator[None]:
    """An `EngineError` as the command's one line, without importing the engine's errors first:
    they bring the contract's models, which neither the window before it is on screen nor `serve`
    before its listening line need load (docs/decisions/cold-start.md). One can only be raised
    once its module is loaded."""
    try:
        yield
    except Exception as exc:
        errors = sys.modules.get("host.engine.errors")
        if errors is not None and isinstance(exc, errors.EngineError):
            raise CliError(str(exc)) from exc
        raise


def provider_name(text: str) -> str:
    """argparse type: a route key (`deepseek`, `my-ollama`); unknown ones fail when the host opens."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", text):
        raise argparse.ArgumentTypeError(t("cli.notProvider", value=repr(text)))
    return text


def port_number(text: str) -> int:
    """argparse type: a TCP port, 0 meaning "pick a free one"."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(t("cli.notPort", value=repr(text))) from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(t("cli.portRange", port=port))
    return port


def add_common(p: argparse.ArgumentParser, top: bool = False) -> None:
    """Flags every command takes. On a subcommand they default to "not given" so that the same
    flag before the subcommand (`--provider x serve`) is kept, not reset by the subparser."""
    unset: Any = None if top else argparse.SUPPRESS
    p.add_argument("--data-dir", default=unset, help=t("cli.dataDir"))
    p.add_argument("--provider", type=provider_name, default=unset, help=t("cli.provider"))
    p.add_argument("--base-url", default=unset, help=t("cli.baseUrl"))
    p.add_argument("--model", default=unset, help=t("cli.model"))
    p.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default="warning" if top else argparse.SUPPRESS,
        help=t("cli.logLevel"),
    )


PATH_OPTIONS = ("data_dir", "token_file", "output", "archive", "restore_backup")
"""The options whose value names a file or folder of the host's own (never the folder a session
works in: `PATH`, `--cwd`). Every sandbox the host starts masks them (docs/threat-model.md, "The
sandbox and the host's own secrets"): the token file above all, wherever it is."""


def named_paths(args: argparse.Namespace) -> tuple[Path, ...]:
    """The absolute paths `PATH_OPTIONS` named on this command line."""
    out: list[Path] = []
    for option in PATH_OPTIONS:
        value = getattr(args, option, None)
        if isinstance(value, str) and value:
            out.append(Path(os.path.abspath(os.path.expanduser(value))))
    return tuple(out)
