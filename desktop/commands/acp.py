"""`harnessdesk acp`: HarnessDesk as the agent behind an editor, over the Agent Client Protocol on
stdio (the protocol side is desktop/acp/). With the window or `serve` already running on the data
dir, the calls travel to it over the instance channel (desktop/instance_relay.py); otherwise this
process opens the host itself under the lock (docs/decisions.md, "ACP bridge").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from desktop.i18n import t
from desktop.options import one_line
from desktop.paths import resolve_data_dir

if TYPE_CHECKING:
    from host.fetch.client import AbstractApiClient


def add_parser(sub: Any) -> argparse.ArgumentParser:
    return sub.add_parser("acp", help=t("cli.acp"))  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    from desktop.acp import take_stdout
    from host.engine.errors import EngineError
    from host.fetch.errors import TransportError

    with one_line(OSError, EngineError, TransportError):
        protocol_out = take_stdout()
        logging.basicConfig(
            stream=sys.stderr, level=getattr(logging, str(args.log_level).upper(), logging.WARNING)
        )
        try:
            return asyncio.run(_main(args, protocol_out))
        except KeyboardInterrupt:
            return 0


async def _main(args: argparse.Namespace, out: IO[bytes]) -> int:
    from desktop.acp import speak

    data_dir = resolve_data_dir(args.data_dir)
    async with _host_client(args, data_dir) as client:
        await speak(client, out)
    return 0


@contextlib.asynccontextmanager
async def _host_client(args: argparse.Namespace, data_dir: Path) -> AsyncIterator[AbstractApiClient]:
    """A client of the running instance's host, or of a host opened here under the lock."""
    from desktop.hostopen import open_locked
    from desktop.instance import acquire
    from desktop.instance_relay import RelayApiClient, serve_relay
    from host.fetch.inprocess import InProcessApiClient

    instance = acquire(data_dir)
    if instance is None:
        client = await RelayApiClient.connect(data_dir)
        try:
            yield client
        finally:
            await client.aclose()
        return
    runtime = await open_locked(data_dir, instance, args)
    loop = asyncio.get_running_loop()
    try:
        instance.listen(lambda: None, None, on_api=lambda conn: serve_relay(conn, runtime.app, loop))
        yield InProcessApiClient(runtime.app)
    finally:
        await runtime.close(bound=2.0)
        instance.close()
