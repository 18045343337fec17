"""Run the site on loopback with uvicorn, on a socket we bind ourselves so port 0 works."""

from __future__ import annotations

import logging
import os
import re
import secrets
import socket
from collections.abc import Callable
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

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


def load_or_mint_token(token_file: Path | None) -> str:
    """A fresh 32-byte token per launch, or the one kept in `token_file` (created 0600)."""
    if token_file is None:
        return secrets.token_urlsafe(32)
    if token_file.exists():
        token = token_file.read_text().strip()
        if len(token) < 16:
            raise ValueError(f"token file {token_file} holds no usable token (16+ characters)")
        return token
    token = secrets.token_urlsafe(32)
    fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio only sets TCP_NODELAY on accepted sockets whose proto says
    # TCP, and with Nagle on every keep-alive response waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class LoopbackServer:
    """uvicorn on an already bound socket; `serve()` runs until `should_exit`."""

    def __init__(self, app: ASGIApp, sock: socket.socket, *, log_level: str = "warning") -> None:
        self.sock = sock
        config = uvicorn.Config(
            app,
            log_level=log_level,
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
            ws="none",
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
