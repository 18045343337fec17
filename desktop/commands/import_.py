"""`harnessdesk import FILE.zip --cwd DIR`: sessions from an archive into DIR's workspace
(registered now if it was not): with a window (or `serve`) running on the data dir, through its
host over the instance channel, and the window shows the session (desktop/handoff.py;
docs/decisions.md, "Import in the app"); otherwise under the lock, as `export`.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from desktop.i18n import t
from desktop.options import CliError, one_line
from desktop.paths import resolve_data_dir


def add_parser(sub: Any) -> argparse.ArgumentParser:
    imp = sub.add_parser("import", help=t("cli.import"))
    imp.add_argument("archive", help=t("cli.archive"))
    imp.add_argument("--cwd", required=True, help=t("cli.importCwd"))
    return imp  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    from host.engine.errors import EngineError

    with one_line(OSError, EngineError):
        return asyncio.run(_import(args, resolve_data_dir(args.data_dir)))


def _existing_dir(raw: str) -> str:
    path = Path(raw).expanduser().resolve()
    if not path.is_dir():
        raise CliError(t("cli.cwdNotDir", path=raw))
    return str(path)


async def _import(args: argparse.Namespace, data_dir: Path) -> int:
    from desktop.handoff import HandoffError, import_into_running
    from desktop.hostopen import open_locked
    from desktop.instance import acquire
    from host.api.archive import ArchiveError, read_archive
    from host.engine.errors import SessionAlreadyHere

    path = Path(args.archive)
    cwd = _existing_dir(args.cwd)
    try:
        sessions = read_archive(path)  # checked whole before anything is written
    except OSError as exc:
        raise CliError(t("cli.cannotRead", path=path, reason=exc.strerror or exc)) from exc
    except ArchiveError as exc:
        raise CliError(t("cli.cannotRead", path=path, reason=exc)) from exc
    instance = acquire(data_dir)
    if instance is None:
        with one_line(HandoffError):
            ids = await import_into_running(data_dir, path, cwd)
        for sid in ids:
            print(sid)
        return 0
    runtime = await open_locked(data_dir, instance, None)
    try:
        try:
            _, ids = await runtime.engine.imports.into_folder(sessions, cwd)
        except SessionAlreadyHere as exc:
            raise CliError(t("cli.cannotImport", path=path, reason=exc)) from exc
        for sid in ids:
            print(sid)
    finally:
        await runtime.close()
        instance.close()
    return 0
