"""Argument parsing for `harnessdesk`; each command lives in its own module, imported lazily.

Bad flags and unusable paths end with a one-line error and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

import contract
from desktop.commands import add_parsers, port_number
from desktop.startup import skip_pydantic_plugin_scan


class CliError(Exception):
    """A user-facing problem: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"harnessdesk: {message}\n")


def provider_name(text: str) -> str:
    """argparse type: a route key (`deepseek`, `my-ollama`); unknown ones fail when the host opens."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", text):
        raise argparse.ArgumentTypeError(f"not a provider name: {text!r}")
    return text


def _common(p: argparse.ArgumentParser, top: bool = False) -> None:
    """Flags every command takes. On a subcommand they default to "not given" so that the same
    flag before the subcommand (`--provider x serve`) is kept, not reset by the subparser."""
    unset: Any = None if top else argparse.SUPPRESS
    p.add_argument(
        "--data-dir", default=unset, help="where sessions and settings live (default: the user data dir)"
    )
    p.add_argument(
        "--provider",
        type=provider_name,
        default=unset,
        help="route for this run: local, deepseek, an endpoint profile's id, or openai-compatible"
        " (with --base-url); never saved",
    )
    p.add_argument("--base-url", default=unset, help="base URL of the --provider route for this run")
    p.add_argument("--model", default=unset, help="model name for this run")
    p.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default="warning" if top else argparse.SUPPRESS,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="harnessdesk",
        usage="%(prog)s [options] [PATH | COMMAND ...]",
        description="Run AI coding-agent sessions on your machine. With PATH, open that folder as "
        "a workspace with a new session (in the running window, if there is one).",
    )
    parser.add_argument("--version", action="version", version=f"harnessdesk {contract.__version__}")
    parser.add_argument("--serve", action="store_true", help="also start the loopback server")
    parser.add_argument(
        "--port", type=port_number, default=0, help="loopback port with --serve (0 = free port)"
    )
    parser.add_argument(
        "--remote",
        metavar="[USER@]HOST[:PORT]",
        help="open the window on a session on that host over SSH (PATH: the folder there)",
    )
    _common(parser, top=True)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    doctor = sub.add_parser("doctor", help="versions, data dir, provider status, GUI backend")
    doctor.add_argument("--self-test", action="store_true", help="run one prompt on the embedded model")
    doctor.add_argument(
        "--repair", action="store_true", help="salvage a damaged database into a new file (keeps the old)"
    )
    doctor.add_argument(
        "--restore-backup",
        nargs="?",
        const="",
        metavar="FILE",
        help="put a backup (default: the newest) in place of the database (keeps the old)",
    )
    _common(doctor)
    add_parsers(sub, _common)
    return parser


def split_folder(parser: argparse.ArgumentParser, argv: Sequence[str]) -> tuple[list[str], str | None]:
    """`harnessdesk [options] PATH`: take PATH (the first positional that names no command) out
    of argv, so that argparse sees only options or a subcommand."""
    takes_value: set[str] = set()
    commands: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            commands |= set(action.choices)
        elif action.nargs != 0:
            takes_value |= set(action.option_strings)
    args = list(argv)
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            rest = args[i + 1 :]
            return args[:i] + rest[1:], rest[0] if rest else None
        if token.startswith("-") and token != "-":
            i += 2 if token in takes_value else 1
            continue
        if token in commands:
            return args, None
        return args[:i] + args[i + 1 :], token
    return args, None


def main(argv: Sequence[str] | None = None, **window_options: Any) -> int:
    """`window_options` go to `desktop.app.run_window` (tests pass their own host factory)."""
    skip_pydantic_plugin_scan()
    given = sys.argv[1:] if argv is None else list(argv)
    if given[:1] == ["askpass"] and os.environ.get("HARNESSDESK_ASKPASS_KEY"):
        from host.askpass_client import client_main  # ssh's SSH_ASKPASS in a packaged build

        return client_main(given[1:])
    parser = build_parser()
    rest, folder = split_folder(parser, sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(rest)
    args.path = folder
    if getattr(args, "remote", None) and args.command is not None:
        parser.error(f"--remote opens the window; it does not go with `{args.command}`")
    if folder is not None and args.command is not None:
        parser.error(f"PATH ({folder}) opens the window; it does not go with `{args.command}`")
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
    from host.engine.errors import EngineError

    try:
        return run_window(args, **options)
    except (WindowError, OSError, EngineError) as exc:  # e.g. a damaged database: one line
        raise CliError(str(exc)) from exc


def _headless(args: argparse.Namespace) -> int:
    from desktop.headless import CommandError, run

    try:
        return run(args)
    except (CommandError, OSError) as exc:
        raise CliError(str(exc)) from exc
