"""What `serve` sets up before the host is built: the loopback socket (bound and listening, so
port 0 works and a browser's first request waits in its backlog), the per-launch token and the
one-time link page. Standard library only: importing it costs nothing
(docs/decisions/cold-start.md)."""

from __future__ import annotations

import html
import ipaddress
import os
import secrets
import socket
import stat
from pathlib import Path

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def load_or_mint_token(token_file: Path | None) -> str:
    """A fresh 32-byte token per launch, or the one kept in `token_file` (created 0600).

    An existing file must be a regular file (not a symlink) owned by this user and closed to
    everyone else: a token another user could have written, or can read, is no secret.
    """
    if token_file is None:
        return secrets.token_urlsafe(32)
    try:
        fd = os.open(token_file, os.O_RDONLY | NOFOLLOW)
    except FileNotFoundError:
        return _mint_into(token_file)
    except OSError as exc:
        if token_file.is_symlink():
            raise ValueError(f"token file {token_file} is a symlink; refusing it") from exc
        raise
    with os.fdopen(fd, "r") as f:
        _check_private(token_file, os.fstat(f.fileno()))
        token = f.read().strip()
    if len(token) < 16:
        raise ValueError(f"token file {token_file} holds no usable token (16+ characters)")
    return token


def _check_private(path: Path, st: os.stat_result) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"token file {path} is not a regular file")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise ValueError(f"token file {path} belongs to another user; refusing it")
    if os.name == "posix" and st.st_mode & 0o077:
        mode = oct(stat.S_IMODE(st.st_mode))
        raise ValueError(f"token file {path} is open to other users (mode {mode}); chmod 600 it")


def _mint_into(token_file: Path) -> str:
    token = secrets.token_urlsafe(32)
    fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token


def write_link_file(directory: Path, url: str) -> Path:
    """A private (0600) page that forwards to `url`, for `serve --open`: the browser's command
    line then shows a file path, never the token, to other users of the machine."""
    path = directory / f"open-{secrets.token_hex(8)}.html"
    page = (
        '<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
        f'<meta http-equiv="refresh" content="0;url={html.escape(url, quote=True)}">'
        "<title>HarnessDesk</title><p>Opening HarnessDesk…</p>"
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(page)
    return path


def is_loopback_bind(host: str) -> bool:
    """Whether binding `host` keeps the server on this machine (a loopback name or address)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


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
