"""`harnessdesk revert SESSION TURN`: `files.revertTurn` without the window, under the data dir's
lock (docs/architecture.md, "Desktop, command line and data").
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from desktop.i18n import t
from desktop.options import CliError, one_line
from desktop.paths import resolve_data_dir


def turn_number(text: str) -> int:
    """argparse type: a turn's number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(t("cli.notTurn", value=repr(text)))
    return value


def add_parser(sub: Any) -> argparse.ArgumentParser:
    revert = sub.add_parser("revert", help=t("cli.revert"))
    revert.add_argument("session_id", help=t("cli.sessionId"))
    revert.add_argument("turn", type=turn_number, help=t("cli.turn"))
    return revert  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    from host.engine.errors import EngineError

    with one_line(OSError, EngineError):
        return asyncio.run(_revert(args, resolve_data_dir(args.data_dir)))


async def _revert(args: argparse.Namespace, data_dir: Path) -> int:
    """One line per file put back; a refusal (a file changed since, nothing to revert) is one
    line on stderr and exit code 1, nothing written."""
    from desktop.hostopen import lock, open_locked
    from host.engine.errors import RevertConflict, RevertUnavailable

    instance = lock(data_dir)
    runtime = await open_locked(data_dir, instance, None)
    try:
        if not await runtime.engine.sessions.has_session(args.session_id):
            raise CliError(t("cli.noSession", session=args.session_id, data_dir=data_dir))
        try:
            value = await runtime.engine.files.revert_turn(args.session_id, args.turn)
        except (RevertConflict, RevertUnavailable) as exc:
            print(f"harnessdesk: {exc}", file=sys.stderr)
            return 1
        for f in value.files:
            print(f"{f.action}\t{f.path}")
    finally:
        await runtime.close()
        instance.close()
    return 0
