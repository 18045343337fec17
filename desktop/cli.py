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
from desktop import i18n, paths
from desktop.commands import add_parsers, port_number
from desktop.i18n import t
from desktop.startup import skip_pydantic_plugin_scan


class CliError(Exception):
    """A user-facing problem: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"harnessdesk: {message}\n")


def provider_name(text: str) -> str:
    """argparse type: a route key (`deepseek`, `my-ollama`); unknown ones fail when the host opens."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", text):
        raise argparse.ArgumentTypeError(t("cli.notProvider", value=repr(text)))
    return text


def _common(p: argparse.ArgumentParser, top: bool = False) -> None:
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


def build_parser() -> argparse.ArgumentParser:
    argparse._ = argparse_words  # type: ignore[attr-defined]  # argparse's own words, in ours
    parser = _Parser(
        prog="harnessdesk",
        usage=t("cli.usage"),
        description=t("cli.description"),
    )
    parser.add_argument(
        "--version", action="version", version=f"harnessdesk {contract.__version__}", help=t("cli.version")
    )
    parser.add_argument("--serve", action="store_true", help=t("cli.serve"))
    parser.add_argument("--port", type=port_number, default=0, help=t("cli.port"))
    parser.add_argument("--remote", metavar="[USER@]HOST[:PORT]", help=t("cli.remote"))
    _common(parser, top=True)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, title=t("cli.commands"))
    doctor = sub.add_parser("doctor", help=t("cli.doctor"))
    doctor.add_argument("--self-test", action="store_true", help=t("cli.selfTest"))
    doctor.add_argument("--repair", action="store_true", help=t("cli.repair"))
    doctor.add_argument("--restore-backup", nargs="?", const="", metavar="FILE", help=t("cli.restoreBackup"))
    _common(doctor)
    add_parsers(sub, _common)
    return parser


ARGPARSE_WORDS = {
    "usage: ": "argparse.usage",
    "positional arguments": "argparse.positional",
    "options": "argparse.options",
    "show this help message and exit": "argparse.help",
    "unrecognized arguments: %s": "argparse.unrecognized",
    "the following arguments are required: %s": "argparse.required",
    "invalid choice: %(value)r (choose from %(choices)s)": "argparse.invalidChoice",
    "invalid %(type)s value: %(value)r": "argparse.invalidValue",
    "argument %(argument_name)s: %(message)s": "argparse.argument",
    "expected one argument": "argparse.expectedOne",
    "expected at most one argument": "argparse.expectedAtMostOne",
    "expected at least one argument": "argparse.expectedAtLeastOne",
    "ambiguous option: %(option)s could match %(matches)s": "argparse.ambiguous",
    "not allowed with argument %s": "argparse.notAllowed",
}
"""argparse's own words that reach a person, by the catalogue key that says them."""


def argparse_words(text: str) -> str:
    """argparse's gettext: its words in the language in use (the rest as they are)."""
    key = ARGPARSE_WORDS.get(text)
    return t(key) if key else text


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
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["askpass"] and os.environ.get("HARNESSDESK_ASKPASS_KEY"):
        from host.askpass_client import client_main  # ssh's SSH_ASKPASS in a packaged build

        return client_main(argv[1:])
    i18n.choose(paths.data_dir_of(data_dir_argument(argv)))
    parser = build_parser()
    rest, folder = split_folder(parser, argv)
    args = parser.parse_args(rest)
    args.path = folder
    if getattr(args, "remote", None) and args.command is not None:
        parser.error(t("cli.remoteWithCommand", command=args.command))
    if folder is not None and args.command is not None:
        parser.error(t("cli.pathWithCommand", path=folder, command=args.command))
    try:
        if args.command is None:
            return _window(args, window_options)
        if args.command == "doctor":
            from desktop.doctor import run_doctor

            return run_doctor(args)
        return _headless(args)  # argparse admits only the commands add_parsers registered
    except CliError as exc:
        print(f"harnessdesk: {exc}", file=sys.stderr)  # the program's name, then the reason
        return 2


def data_dir_argument(argv: Sequence[str]) -> str | None:
    """`--data-dir DIR` / `--data-dir=DIR` anywhere in argv, before argparse runs (the language
    of its help and errors comes from that data dir's settings)."""
    for i, token in enumerate(argv):
        if token == "--":
            break
        if token == "--data-dir" and i + 1 < len(argv):
            return argv[i + 1]
        if token.startswith("--data-dir="):
            return token.split("=", 1)[1]
    return None


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
