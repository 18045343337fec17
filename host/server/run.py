"""Run the site on loopback with uvicorn, on a socket bound beforehand (host/server/binding.py)."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from collections.abc import Callable

import uvicorn
from starlette.types import ASGIApp

from host.server.write_batching import CoalescingH11Protocol

_TOKEN_IN_TEXT = re.compile(r"token=[^&\s\"']+")


class RedactTokens(logging.Filter):
    """Belt and braces: no log record may carry a token, even if a URL slips into one."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(
                _TOKEN_IN_TEXT.sub("token=<redacted>", a) if isinstance(a, str) else a
                for a in (record.args if isinstance(record.args, tuple) else (record.args,))
            )
        if isinstance(record.msg, str):
            record.msg = _TOKEN_IN_TEXT.sub("token=<redacted>", record.msg)
        return True


class LoopbackServer:
    """uvicorn on an already bound socket; `serve()` runs until `should_exit`."""

    def __init__(
        self,
        app: ASGIApp,
        sock: socket.socket,
        *,
        log_level: str = "warning",
        http: type[asyncio.Protocol] | str = CoalescingH11Protocol,
    ) -> None:
        """`http`: uvicorn's protocol; one write per loop step by default (host/server/write_batching.py)."""
        self.sock = sock
        config = uvicorn.Config(
            app,
            log_level=log_level,
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
            ws="none",
            http=http,
        )
        self.server = uvicorn.Server(config)
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).addFilter(RedactTokens())

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    async def serve(self, on_ready: Callable[[], None] | None = None) -> None:
        if on_ready is not None:
            original_startup = self.server.startup

            async def startup(sockets: list[socket.socket] | None = None) -> None:
                await original_startup(sockets=sockets)
                on_ready()

            self.server.startup = startup  # type: ignore[method-assign]
        await self.server.serve(sockets=[self.sock])

    def stop(self) -> None:
        self.server.should_exit = True
