"""A command's own host: the data dir's lock, then `host.api.open_host` with the flags' overrides
and the paths the command line named masked (docs/architecture.md, "Desktop, command line and
data"). Only one process owns a data dir at a time, so a command that writes takes the lock and
refuses politely when another process holds it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.i18n import t
from desktop.instance import PrimaryInstance, acquire
from desktop.options import CliError, named_paths

if TYPE_CHECKING:
    from host.api import HostRuntime
    from host.engine.llm.overrides import RuntimeOverrides


def overrides_of(args: argparse.Namespace) -> RuntimeOverrides:
    """`--provider/--base-url/--model`: this run only, never saved."""
    from host.engine.llm.overrides import RuntimeOverrides

    return RuntimeOverrides(provider=args.provider, base_url=args.base_url, model=args.model)


def lock(data_dir: Path) -> PrimaryInstance:
    """The data dir's lock, or the one-line refusal when another process runs on it."""
    instance = acquire(data_dir)
    if instance is None:
        raise CliError(t("cli.otherInstance", data_dir=data_dir))
    return instance


async def open_locked(
    data_dir: Path, instance: PrimaryInstance, args: argparse.Namespace | None
) -> HostRuntime:
    """Open the host under the data dir's lock (with the flags' overrides when `args` is given);
    a refusal (a damaged database, an unknown --provider) frees the lock at once. The host is
    imported here, not with this module: `serve` takes the lock and prints its line first."""
    try:
        from host.api import open_host

        if args is None:
            return await open_host(data_dir)
        return await open_host(data_dir, overrides_of(args), masked=named_paths(args))
    except BaseException:
        instance.close()
        raise
