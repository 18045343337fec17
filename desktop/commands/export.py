"""`harnessdesk export SESSION -o FILE.zip [--descendants]`: a session (and its subagents') as a
zip archive, read from the data dir without taking its lock (docs/architecture.md, "Desktop,
command line and data").
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
    export = sub.add_parser("export", help=t("cli.export"))
    export.add_argument("session_id", help=t("cli.sessionId"))
    export.add_argument("-o", "--output", required=True, help=t("cli.output"))
    export.add_argument("--descendants", action="store_true", help=t("cli.descendants"))
    return export  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    from host.engine.errors import EngineError

    with one_line(OSError, EngineError):
        return asyncio.run(_export(args, resolve_data_dir(args.data_dir)))


async def _export(args: argparse.Namespace, data_dir: Path) -> int:
    from host.api import open_host
    from host.api.archive import zip_chunks

    runtime = await open_host(data_dir)
    try:
        if not await runtime.engine.sessions.has_session(args.session_id):
            raise CliError(t("cli.noSession", session=args.session_id, data_dir=data_dir))
        out = Path(args.output)
        try:
            f = await asyncio.to_thread(out.open, "wb")
            with f:
                async for chunk in zip_chunks(runtime.engine, args.session_id, args.descendants):
                    await asyncio.to_thread(f.write, chunk)
        except OSError as exc:
            raise CliError(t("cli.cannotWrite", path=out, reason=exc.strerror)) from exc
        print(out)
    finally:
        await runtime.close()
    return 0
