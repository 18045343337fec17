"""The headless subcommands' arguments (`serve`, `prompt`, `export`, `import`, `revert`, `acp`).

Apart from desktop/headless.py, which runs them, because building the parser must stay cheap:
the window path parses its arguments first and starts GTK while the host (pydantic, the engine)
is still being imported on its own thread (docs/decisions.md, "Performance and packaging").
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from desktop.i18n import t

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


def port_number(text: str) -> int:
    """argparse type: a TCP port, 0 meaning "pick a free one"."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(t("cli.notPort", value=repr(text))) from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(t("cli.portRange", port=port))
    return port


def turn_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(t("cli.notTurn", value=repr(text)))
    return value


def add_parsers(sub: Any, common: Any) -> None:
    """Register the headless subcommands on the main parser's subparsers."""
    serve = sub.add_parser("serve", help=t("cli.serveCommand"))
    serve.add_argument("--host", default="127.0.0.1", help=t("cli.host"))
    serve.add_argument("--allow-remote", action="store_true", help=t("cli.allowRemote"))
    serve.add_argument("--port", type=port_number, default=0, help=t("cli.servePort"))
    serve.add_argument("--trusted-host", action="append", default=[], help=t("cli.trustedHost"))
    serve.add_argument("--token-file", help=t("cli.tokenFile"))
    serve.add_argument("--open", action="store_true", help=t("cli.open"))
    # a remote host's server (docs/decisions.md, "Remote hosts"): desktop/serve_unix.py
    serve.add_argument("--unix-socket", metavar="PATH", help=t("cli.unixSocket"))
    serve.add_argument("--handover", metavar="-", help=t("cli.handover"))
    lifetime = serve.add_mutually_exclusive_group()
    lifetime.add_argument("--attached", action="store_true", help=t("cli.attached"))
    lifetime.add_argument("--detach", action="store_true", help=t("cli.detach"))
    serve.add_argument("--idle-exit", type=float, default=0.0, metavar="SECONDS", help=t("cli.idleExit"))
    # the desktop window's own host process (docs/decisions/window-host-process.md): not for people
    serve.add_argument("--window", action="store_true", help=argparse.SUPPRESS)
    serve.add_argument("--window-serve", metavar="WEBUI", help=argparse.SUPPRESS)
    common(serve)
    prompt = sub.add_parser("prompt", help=t("cli.prompt"))
    prompt.add_argument("text", help=t("cli.promptText"))
    prompt.add_argument("--session", help=t("cli.session"))
    prompt.add_argument("--cwd", help=t("cli.promptCwd"))
    prompt.add_argument("--json", action="store_true", help=t("cli.json"))
    common(prompt)
    export = sub.add_parser("export", help=t("cli.export"))
    export.add_argument("session_id", help=t("cli.sessionId"))
    export.add_argument("-o", "--output", required=True, help=t("cli.output"))
    export.add_argument("--descendants", action="store_true", help=t("cli.descendants"))
    common(export)
    revert = sub.add_parser("revert", help=t("cli.revert"))
    revert.add_argument("session_id", help=t("cli.sessionId"))
    revert.add_argument("turn", type=turn_number, help=t("cli.turn"))
    common(revert)
    imp = sub.add_parser("import", help=t("cli.import"))
    imp.add_argument("archive", help=t("cli.archive"))
    imp.add_argument("--cwd", required=True, help=t("cli.importCwd"))
    common(imp)
    acp = sub.add_parser("acp", help=t("cli.acp"))
    common(acp)
