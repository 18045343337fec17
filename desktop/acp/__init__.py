"""`harnessdesk acp`: HarnessDesk as the agent behind an editor, over ACP on stdio.

stdout carries protocol frames only: the real stdout is kept for the protocol and file
descriptor 1 then points at stderr, so a stray print (ours, a library's, llama.cpp's) cannot
corrupt the stream. Logs go to stderr. With the window or `serve` already running on the data
dir, the calls travel to it over the instance channel (desktop/acp/relay.py); otherwise this
process opens the host itself (docs/decisions.md, "ACP bridge").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from asyncio.streams import FlowControlMixin
from typing import IO, Any

from desktop.paths import resolve_data_dir


def run_acp(args: argparse.Namespace) -> int:
    protocol_out = _take_stdout()
    logging.basicConfig(
        stream=sys.stderr, level=getattr(logging, str(args.log_level).upper(), logging.WARNING)
    )
    try:
        return asyncio.run(_main(args, protocol_out))
    except KeyboardInterrupt:
        return 0


def _take_stdout() -> IO[bytes]:
    """The protocol's stdout; fd 1 (and `sys.stdout`) now write to stderr."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


async def _streams(out: IO[bytes]) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    protocol = FlowControlMixin()
    transport, _ = await loop.connect_write_pipe(lambda: protocol, out)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


async def _main(args: argparse.Namespace, out: IO[bytes]) -> int:
    import acp

    from desktop.acp.agent import HarnessAcpAgent

    data_dir = resolve_data_dir(args.data_dir)
    async with _host_client(args, data_dir) as client:
        agent = HarnessAcpAgent(client)
        reader, writer = await _streams(out)
        try:
            conn = acp.core.AgentSideConnection(agent, writer, reader, listening=False)  # type: ignore[arg-type]
            try:
                await conn.listen()
            finally:
                await asyncio.shield(conn.close())
        finally:
            await agent.close()
    return 0


@contextlib.asynccontextmanager
async def _host_client(args: argparse.Namespace, data_dir: Any) -> Any:
    """A client of the running instance's host, or of a host opened here under the lock."""
    from desktop.acp.relay import RelayApiClient, serve_relay
    from desktop.headless import CommandError, overrides_of
    from desktop.instance import acquire
    from host.api import open_host
    from host.fetch.inprocess import InProcessApiClient

    instance = acquire(data_dir)
    if instance is None:
        client = await RelayApiClient.connect(data_dir)
        try:
            yield client
        finally:
            await client.aclose()
        return
    try:
        runtime = await open_host(data_dir, overrides_of(args))
    except BaseException:
        instance.close()
        raise
    loop = asyncio.get_running_loop()
    try:
        if runtime is None:  # pragma: no cover - open_host raises instead
            raise CommandError("the host could not start")
        instance.listen(lambda: None, None, on_api=lambda conn: serve_relay(conn, runtime.app, loop))
        yield InProcessApiClient(runtime.app)
    finally:
        await runtime.close(bound=2.0)
        instance.close()
