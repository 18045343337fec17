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
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0-65535, not {port}")
    return port


def turn_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a turn number (0, 1, 2, …)")
    return value


def add_parsers(sub: Any, common: Any) -> None:
    """Register the headless subcommands on the main parser's subparsers."""
    serve = sub.add_parser("serve", help="headless host + loopback server; prints a one-time URL")
    serve.add_argument("--host", default="127.0.0.1", help="loopback address to bind (default 127.0.0.1)")
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="DANGEROUS: allow a non-loopback --host; anyone on the network with the token drives"
        " the agent, and the token crosses the network unencrypted",
    )
    serve.add_argument("--port", type=port_number, default=0, help="port (0 = a free port)")
    serve.add_argument("--trusted-host", action="append", default=[], help="extra allowed Host name")
    serve.add_argument("--token-file", help="keep the access token in this file (created 0600)")
    serve.add_argument("--open", action="store_true", help="open the URL in the default browser")
    # a remote host's server (docs/decisions.md, "Remote hosts"): desktop/serve_unix.py
    serve.add_argument(
        "--unix-socket", metavar="PATH", help="listen on this Unix socket (0600, in a 0700 folder), not TCP"
    )
    serve.add_argument(
        "--handover", metavar="-", help="with --unix-socket: read one JSON line of settings on stdin"
    )
    lifetime = serve.add_mutually_exclusive_group()
    lifetime.add_argument("--attached", action="store_true", help="with --unix-socket: end when stdin closes")
    lifetime.add_argument("--detach", action="store_true", help="with --unix-socket: go on alone once ready")
    serve.add_argument(
        "--idle-exit",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="with --detach: stop after this idle time",
    )
    common(serve)
    prompt = sub.add_parser("prompt", help="run one turn and stream the answer to stdout")
    prompt.add_argument("text")
    prompt.add_argument("--session", help="continue this session (default: a new one)")
    prompt.add_argument("--cwd", help="the folder a new session works in (default: the current one)")
    prompt.add_argument("--json", action="store_true", help="print the raw frames as JSON lines")
    common(prompt)
    export = sub.add_parser("export", help="write a session archive (.zip)")
    export.add_argument("session_id")
    export.add_argument("-o", "--output", required=True, help="the .zip file to write")
    export.add_argument("--descendants", action="store_true", help="include forked child sessions")
    common(export)
    revert = sub.add_parser("revert", help="put back the files a turn changed (any tool, shell included)")
    revert.add_argument("session_id")
    revert.add_argument("turn", type=turn_number, help="the turn's number (0 is the first)")
    common(revert)
    imp = sub.add_parser("import", help="read a session archive back")
    imp.add_argument("archive")
    imp.add_argument(
        "--cwd",
        required=True,
        help="the folder the imported sessions may work in (the archive's own folder is never used)",
    )
    common(imp)
    acp = sub.add_parser(
        "acp", help="speak the Agent Client Protocol on stdin/stdout (for an editor such as Zed)"
    )
    common(acp)
