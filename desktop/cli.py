"""`harnessdesk`: the main parser and the dispatch to one command's entry (desktop/commands/,
one module per command: its arguments and its `run`; docs/architecture.md, "Desktop, command line
and data").

Bad flags and unusable paths end with a one-line error and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, Protocol

import contract
from desktop import i18n, paths
from desktop.commands import acp, doctor, export, import_, prompt, revert, serve, window
from desktop.i18n import t
from desktop.options import CliError, add_common
from desktop.startup import skip_pydantic_plugin_scan


class Entry(Protocol):
    """What a subcommand's module offers (checked by mypy against each module)."""

    def add_parser(self, sub: Any) -> argparse.ArgumentParser: ...
    def run(self, args: argparse.Namespace) -> int: ...


COMMANDS: dict[str, Entry] = {
    "doctor": doctor,
    "serve": serve,
    "prompt": prompt,
    "export": export,
    "revert": revert,
    "import": import_,
    "acp": acp,
}
"""The subcommands' entries, in the order `--help` lists them; no subcommand is the window
(desktop/commands/window.py)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"harnessdesk: {message}\n")


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
    window.arguments(parser)
    add_common(parser, top=True)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, title=t("cli.commands"))
    for entry in COMMANDS.values():
        add_common(entry.add_parser(sub))
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
    """`window_options` go to the window's entry (tests pass their own host factory)."""
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
            return window.run(args, **window_options)  # the host's thread skips the scan there
        skip_pydantic_plugin_scan()
        return COMMANDS[args.command].run(args)  # argparse admits only the commands registered
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
