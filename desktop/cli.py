"""Argument parsing for `harnessdesk`; each command lives in its own module, imported lazily.

Bad flags and unusable paths end with a one-line error and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, get_args

import contract
from desktop.commands import add_parsers, port_number


class CliError(Exception):
    """A user-facing problem: printed as one line, exit code 2."""


class _Providers:
    """`--provider` choices, read from the contract only when a provider is given (or --help):
    importing `contract.settings` loads pydantic, which the window's start-up leaves to the
    host's thread. (A metavar keeps argparse from listing them when the option is declared.)"""

    def _names(self) -> tuple[str, ...]:
        from contract.settings import ProviderName

        return get_args(ProviderName)

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Any:
        return iter(self._names())


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"harnessdesk: {message}\n")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", help="where sessions and settings live (default: the user data dir)")
    p.add_argument("--provider", choices=_Providers(), metavar="PROVIDER", help="one of: %(choices)s")
    p.add_argument("--base-url", help="base URL of an OpenAI-compatible endpoint")
    p.add_argument("--model", help="model name for the provider")
    p.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="harnessdesk", description="Run AI coding-agent sessions on your machine.")
    parser.add_argument("--version", action="version", version=f"harnessdesk {contract.__version__}")
    parser.add_argument("--serve", action="store_true", help="also start the loopback server")
    parser.add_argument(
        "--port", type=port_number, default=0, help="loopback port with --serve (0 = free port)"
    )
    _common(parser)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    doctor = sub.add_parser("doctor", help="versions, data dir, provider status, GUI backend")
    doctor.add_argument("--self-test", action="store_true", help="run one prompt on the embedded model")
    _common(doctor)
    add_parsers(sub, _common)
    return parser


def main(argv: Sequence[str] | None = None, **window_options: Any) -> int:
    """`window_options` go to `desktop.app.run_window` (tests pass their own host factory)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            return _window(args, window_options)
        if args.command == "doctor":
            from desktop.doctor import run_doctor

            return run_doctor(args)
        return _headless(args)  # argparse admits only the commands add_parsers registered
    except CliError as exc:
        print(f"harnessdesk: {exc}", file=sys.stderr)
        return 2


def _window(args: argparse.Namespace, options: dict[str, Any]) -> int:
    from desktop.app import WindowError, run_window

    try:
        return run_window(args, **options)
    except (WindowError, OSError) as exc:
        raise CliError(str(exc)) from exc


def _headless(args: argparse.Namespace) -> int:
    from desktop.headless import CommandError, run

    try:
        return run(args)
    except (CommandError, OSError) as exc:
        raise CliError(str(exc)) from exc
