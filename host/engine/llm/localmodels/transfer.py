"""One connection of a model download: an HTTP(S) request with `Range`, or a local file read
from an offset, as (first byte, total size, chunks); and the sentences failures are told in
(docs/decisions.md, "Offline agent")."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

CHUNK = 256 * 1024


class DownloadFailed(Exception):
    """A download cannot go on; the message is the sentence the person reads, `cause` what the
    page words itself (contract/llm.py `DownloadCause`)."""

    def __init__(self, message: str, cause: str | None = None) -> None:
        super().__init__(message)
        self.cause = cause


@contextlib.asynccontextmanager
async def open_source(
    source: str, offset: int, known_total: int | None, http: dict[str, Any]
) -> AsyncIterator[tuple[int, int | None, AsyncIterator[bytes]]]:
    """(first byte offset, total size or None, the chunks) of one request."""
    parts = urlsplit(source)
    if parts.scheme == "file":
        path = Path(unquote(parts.path))
        yield offset, await asyncio.to_thread(file_size, path), _file_chunks(path, offset)
        return
    import httpx  # only when something is downloaded

    headers = {"Range": f"bytes={offset}-"} if offset else {}
    async with (
        httpx.AsyncClient(follow_redirects=True, **http) as client,
        client.stream("GET", source, headers=headers) as response,
    ):
        if response.status_code == 416 and known_total is not None and offset >= known_total:
            yield offset, known_total, _empty()
            return
        if response.status_code not in (200, 206):
            raise DownloadFailed(f"the server answered HTTP {response.status_code}")
        start, total = 0, None
        if response.status_code == 206:
            start, total = _content_range(response.headers.get("content-range"), offset)
        elif length := response.headers.get("content-length"):
            total = int(length) if length.isdigit() else None
        yield start, total, response.aiter_bytes(CHUNK)


def _content_range(header: str | None, offset: int) -> tuple[int, int | None]:
    """`bytes START-END/TOTAL` → (START, TOTAL); a range that is not where we asked fails."""
    try:
        unit, _, spec = (header or "").partition(" ")
        span, _, total = spec.partition("/")
        start = int(span.split("-")[0])
    except ValueError:
        raise DownloadFailed(f"the server sent an unreadable Content-Range {header!r}") from None
    if unit != "bytes" or start != offset:
        raise DownloadFailed(f"the server resumed at the wrong place ({header!r}, asked for {offset})")
    return start, int(total) if total.isdigit() else None


def file_size(path: Path) -> int | None:
    return path.stat().st_size if path.is_file() else None


async def _file_chunks(path: Path, offset: int) -> AsyncIterator[bytes]:
    with await asyncio.to_thread(open, path, "rb") as f:
        f.seek(offset)
        while data := await asyncio.to_thread(f.read, CHUNK):
            yield data


async def _empty() -> AsyncIterator[bytes]:
    return
    yield b""


def flush(f: Any) -> None:
    f.flush()
    os.fsync(f.fileno())


def human_size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} bytes"


def disk_sentence(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "the disk is full: the download was stopped and its partial file removed"
    return f"the model file could not be written: {exc.strerror or exc}"


def describe_error(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


NO_ROUTE = frozenset({errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN})


def no_network(exc: BaseException, source: str) -> str | None:
    """The plain sentence for a connection that found no network (its host's name did not
    resolve, or there is no route), else None: a refused or dropped connection is the server's
    (docs/decisions.md, "A day's work without friction")."""
    host = urlsplit(source).hostname or source
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, socket.gaierror):
            return f"no network: {host} could not be reached (its name did not resolve)"
        if isinstance(cause, OSError) and cause.errno in NO_ROUTE:
            return f"no network: {host} could not be reached ({cause.strerror or 'no route'})"
        cause = cause.__cause__ or cause.__context__
    return None
