"""One authenticated `host.describe` through a Unix socket, without the carrier's client (the
engine does not import it): how the supervisor knows the forward reaches a live server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from contract.rpc import new_rpc_id

PING_BOUND = 10.0


class PingFailed(Exception):
    pass


async def describe(socket_path: Path, token: str, bound: float = PING_BOUND) -> dict[str, Any]:
    """The remote host's `host.describe` value; PingFailed when it does not answer with one."""
    body = json.dumps(
        {"type": "client-request", "rpcId": new_rpc_id(), "method": "host.describe", "payload": {}}
    ).encode()
    head = (
        "POST /api/host.describe HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {token}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    try:
        async with asyncio.timeout(bound):
            reader, writer = await asyncio.open_unix_connection(str(socket_path))
            try:
                writer.write(head + body)
                await writer.drain()
                raw = await reader.read()
            finally:
                writer.close()
    except (OSError, TimeoutError) as exc:
        raise PingFailed(f"the server does not answer through the forward ({exc})") from exc
    status_line, _, rest = raw.partition(b"\r\n")
    if b" 200 " not in status_line + b" ":
        raise PingFailed(f"the server answered {status_line.decode('latin-1', 'replace')[:80]}")
    _, _, payload = rest.partition(b"\r\n\r\n")
    try:
        answer = json.loads(payload)
        value: dict[str, Any] = answer["result"]["value"]
    except (ValueError, KeyError, TypeError) as exc:
        raise PingFailed("the server's answer is not a host.describe") from exc
    return value
