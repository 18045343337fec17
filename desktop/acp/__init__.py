"""HarnessDesk as the agent behind an editor, over ACP on stdio, as a client of a host's API
(`harnessdesk acp` is desktop/commands/acp.py; docs/decisions.md, "ACP bridge").

stdout carries protocol frames only: the real stdout is kept for the protocol and file
descriptor 1 then points at stderr, so a stray print (ours, a library's, llama.cpp's) cannot
corrupt the stream. Logs go to stderr.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from asyncio.streams import FlowControlMixin
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from host.fetch.client import AbstractApiClient

LINE_LIMIT = 64 * 1024 * 1024
"""The longest protocol line read (images travel inline as base64)."""


def take_stdout() -> IO[bytes]:
    """The protocol's stdout; fd 1 (and `sys.stdout`) now write to stderr."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


async def _streams(out: IO[bytes]) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, asyncio.Task[None]]:
    """The SDK's reader (fed only well-formed JSON-RPC objects), its writer, and the feeding
    task: a line that is not JSON, or not an object, is answered here with JSON-RPC's own
    error (the SDK would only log it), so a client always hears back."""
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    protocol = FlowControlMixin()
    transport, _ = await loop.connect_write_pipe(lambda: protocol, out)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    checked = asyncio.StreamReader(limit=LINE_LIMIT)

    async def feed() -> None:
        try:
            while line := await _line(stdin):
                if not line.strip():
                    continue
                problem = _malformed(line)
                if problem is None:
                    checked.feed_data(line if line.endswith(b"\n") else line + b"\n")
                else:
                    writer.write(problem)
        finally:
            checked.feed_eof()

    return checked, writer, asyncio.create_task(feed(), name="acp-stdin")


async def _line(reader: asyncio.StreamReader) -> bytes:
    """The next line; an over-long one is skipped whole and comes back as a non-JSON line."""
    too_long = False
    while True:
        try:
            line = await reader.readuntil(b"\n")
            return b"{the line was too long}\n" if too_long else line
        except asyncio.IncompleteReadError as exc:
            return b"" if too_long else exc.partial
        except asyncio.LimitOverrunError as exc:
            too_long = True
            await reader.readexactly(exc.consumed)


def _malformed(line: bytes) -> bytes | None:
    """JSON-RPC's answer to a line that is not a message object, or None when it is one."""
    try:
        message = json.loads(line)
    except ValueError:
        code, text = -32700, "Parse error: the line is not JSON"
    else:
        if isinstance(message, dict):
            return None
        code, text = -32600, "Invalid Request: a message must be a JSON object"
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": text}}
    return json.dumps(error).encode() + b"\n"


async def speak(client: AbstractApiClient, out: IO[bytes]) -> None:
    """Be the agent on stdin and `out` (from `take_stdout`) until the editor closes stdin."""
    import acp

    from desktop.acp.agent import HarnessAcpAgent

    agent = HarnessAcpAgent(client)
    reader, writer, feeding = await _streams(out)
    try:
        conn = acp.core.AgentSideConnection(agent, writer, reader, listening=False)  # type: ignore[arg-type]
        try:
            await conn.listen()
        finally:
            await asyncio.shield(conn.close())
    finally:
        feeding.cancel()
        await agent.close()
