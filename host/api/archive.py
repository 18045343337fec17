"""Session archives: a ZIP streamed entry by entry (never whole in memory) and read back.

Layout: `session.jsonl` (line 1 = header, then one event per line), descendants under
`subagents/<id>/session.jsonl`, referenced images under `media/<attachmentId>.<ext>` with their
reference (media type, size, dimensions) beside them in `media/<attachmentId>.json`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import lzma
import re
import zipfile
import zlib
from collections.abc import AsyncIterator, Iterator
from itertools import accumulate
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contract.content import AttachmentRef
from contract.events import SessionEvent
from contract.sessions import SessionId
from host.engine.engine import Engine
from host.engine.errors import ArchiveInvalid
from host.engine.store import ExportRow
from host.engine.store.base import ExportAttachment, ExportEvent, ExportHeader
from host.textsafe import clean_json

EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}


class _Sink(io.RawIOBase):
    """A write-only, unseekable buffer: zipfile then streams entries with data descriptors."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self._parts.append(bytes(data))
        return len(data)

    def drain(self) -> bytes:
        out = b"".join(self._parts)
        self._parts.clear()
        return out


async def descendants(engine: Engine, session_id: str) -> list[str]:
    """Every session below `session_id` in its lineage, depth first (a child, then its own
    children, then the next child), each once."""
    children: dict[str, list[str]] = {}
    for summary in await engine.sessions.list_sessions():
        if summary.parent_session_id:
            children.setdefault(summary.parent_session_id, []).append(summary.session_id)
    out: list[str] = []
    seen = {session_id}

    def walk(current: str) -> None:
        for child in children.get(current, []):
            if child not in seen:
                seen.add(child)
                out.append(child)
                walk(child)

    walk(session_id)
    return out


def entry_name(session_id: str) -> str:
    """`subagents/<safeId>/session.jsonl`: every descendant flat under `subagents/`."""
    return f"subagents/{re.sub(r'[^A-Za-z0-9._-]', '_', session_id)}/session.jsonl"


async def zip_chunks(engine: Engine, session_id: str, include_descendants: bool) -> AsyncIterator[bytes]:
    sink = _Sink()
    seen_media: set[str] = set()
    ids = [session_id] + (await descendants(engine, session_id) if include_descendants else [])
    with zipfile.ZipFile(sink, mode="w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for index, sid in enumerate(ids):
            name = "session.jsonl" if index == 0 else entry_name(sid)
            media: list[ExportAttachment] = []
            with zf.open(name, mode="w") as entry:
                async for row in engine.sessions.export_rows(sid):
                    if isinstance(row, ExportAttachment):
                        media.append(row)
                        continue
                    entry.write(row.json.encode("utf-8") + b"\n")
                    chunk = sink.drain()
                    if chunk:
                        yield chunk
            for item in media:
                ref = item.ref
                if ref.attachment_id in seen_media:
                    continue
                seen_media.add(ref.attachment_id)
                zf.writestr(f"media/{ref.attachment_id}.{EXTENSIONS[ref.media_type]}", item.data)
                zf.writestr(f"media/{ref.attachment_id}.json", json.dumps(ref.dump()))
                yield sink.drain()
    yield sink.drain()


class ArchiveError(ValueError):
    """Not a readable session archive; the message is one line for the user."""


MAX_ENTRY_BYTES = 256 * 1024 * 1024
"""Uncompressed size of one entry (a session log or an image)."""
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
"""Uncompressed size of the whole archive."""
MAX_RATIO = 100
"""Deflate gets JSON logs to ~1/10; a larger entry expanding 100x or more is a zip bomb."""
RATIO_FLOOR = 1024 * 1024
"""Entries below this size are never refused for their ratio."""
MAX_ENTRIES = 100_000
MAX_DEPTH = 64
"""Nesting of one JSON value (a header, an event, an image's reference). The app's own events
nest a dozen levels; the parsers give up somewhere past 200 (pydantic) or 1,000 (Python's json,
with a RecursionError), and the code that reads a stored event back recurses too."""
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class ArchiveHeader(BaseModel):
    """Line 1 of a session log, checked as strictly as `session.create` checks its input, so an
    archive cannot plant an id or a header that breaks `session.list` later."""

    model_config = ConfigDict(extra="ignore")

    id: SessionId
    created_at: int = Field(alias="createdAt", ge=0)
    cwd: str | None = None
    parent_session: SessionId | None = Field(default=None, alias="parentSession")
    seed_length: int = Field(default=0, alias="seedLength", ge=0)
    agent_preset: str | None = Field(default=None, alias="agentPreset", max_length=200)
    title: str | None = Field(default=None, max_length=1000)
    title_source: Literal["user", "auto"] | None = Field(default=None, alias="titleSource")
    last_activity: int | None = Field(default=None, alias="lastActivity", ge=0)
    blank: bool = True
    origin: Literal["subagent"] | None = None


def read_archive(path: Path | IO[bytes]) -> list[list[ExportRow]]:
    """Each session of an archive as export rows (main session first, then descendants).

    Every entry is parsed and checked (sizes, header, events with contiguous seqs from 0, media
    whose id is the hash of its bytes) before anything is returned, so a broken or hostile
    archive imports nothing. Raises ArchiveError (or OSError).
    """
    try:
        with zipfile.ZipFile(path) as zf:
            _check_entries(zf)
            return _read_sessions(zf)
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"not a readable zip archive ({_first_line(exc)})") from exc
    except (zlib.error, lzma.LZMAError, EOFError) as exc:
        raise ArchiveError(f"an entry's compressed data is damaged ({_first_line(exc)})") from exc
    except (NotImplementedError, RuntimeError) as exc:  # unsupported method, encrypted entry
        raise ArchiveError(f"an entry cannot be read: {_first_line(exc)}") from exc


async def read_uploaded(data: bytes) -> list[list[ExportRow]]:
    """`session.import`'s bytes, checked like a file (off the loop: parsing is CPU work);
    ArchiveInvalid with the reader's one line."""
    try:
        return await asyncio.to_thread(read_archive, io.BytesIO(data))
    except ArchiveError as exc:
        raise ArchiveInvalid(str(exc)) from exc


def _check_entries(zf: zipfile.ZipFile) -> None:
    """Refuse duplicate names and sizes past the caps before a single byte is inflated."""
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise ArchiveError(f"too many entries ({len(infos)})")
    seen: set[str] = set()
    total = 0
    for info in infos:
        if info.filename in seen:
            raise ArchiveError(f"{info.filename}: the entry appears twice")
        seen.add(info.filename)
        if info.file_size > MAX_ENTRY_BYTES:
            raise ArchiveError(f"{info.filename}: {info.file_size} bytes uncompressed is too large")
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise ArchiveError(f"{info.filename}: expands {info.file_size // max(info.compress_size, 1)}x")
        total += info.file_size
    if total > MAX_TOTAL_BYTES:
        raise ArchiveError(f"{total} bytes uncompressed is too large")


def _read(zf: zipfile.ZipFile, name: str) -> bytes:
    """An entry's bytes, never more than its checked size (zipfile stops at the declared size)."""
    try:
        with zf.open(name) as entry:
            data = entry.read(MAX_ENTRY_BYTES + 1)
    except OSError as exc:  # bz2 says "Invalid data stream" with an OSError
        raise ArchiveError(f"the compressed data is damaged ({_first_line(exc)})") from exc
    if len(data) > MAX_ENTRY_BYTES:
        raise ArchiveError("too large")
    return data


def _read_sessions(zf: zipfile.ZipFile) -> list[list[ExportRow]]:
    names = zf.namelist()
    if "session.jsonl" not in names:
        raise ArchiveError("not a HarnessDesk archive: session.jsonl is missing")
    media: list[ExportRow] = []
    for name in names:
        if name.startswith("media/") and name.endswith(".json"):
            with _entry(name):
                ref = AttachmentRef.model_validate_json(_bounded(_read(zf, name).decode("utf-8")))
                data = _read(zf, f"media/{ref.attachment_id}.{EXTENSIONS[ref.media_type]}")
                if ref.attachment_id != "sha256-" + hashlib.sha256(data).hexdigest():
                    raise ArchiveError("the image's id is not the hash of its bytes")
            media.append(ExportAttachment(ref, data))
    logs = ["session.jsonl", *sorted(n for n in names if n.startswith("subagents/"))]
    sessions: list[list[ExportRow]] = []
    ids: set[str] = set()
    for name in logs:
        with _entry(name):
            lines = _read(zf, name).decode("utf-8").splitlines()
            if not lines:
                raise ArchiveError("it is empty")
            first = _checked_line(lines[0])
            header = ArchiveHeader.model_validate_json(first)
            if header.id in ids:
                raise ArchiveError(f"session {header.id} appears twice")
            if name != "session.jsonl" and name != entry_name(header.id):
                raise ArchiveError(f"holds session {header.id}")
            ids.add(header.id)
        rows: list[ExportRow] = [ExportHeader(first)]
        for number, line in enumerate(_non_empty(lines[1:])):
            with _entry(f"{name}, event {number}"):
                line = _checked_line(line)
                event = SessionEvent.model_validate_json(line)
                if event.seq != number:
                    raise ArchiveError(f"seq {event.seq} where {number} belongs")
            rows.append(ExportEvent(line))
        sessions.append(rows + media)
    return sessions


@contextlib.contextmanager
def _entry(where: str) -> Iterator[None]:
    """Name the entry a parse or validation failure comes from, in one line."""
    try:
        yield
    except ArchiveError as exc:
        raise ArchiveError(f"{where}: {exc}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(part) for part in first["loc"])
        raise ArchiveError(f"{where}: {loc + ': ' if loc else ''}{first['msg']}") from exc
    except KeyError as exc:
        raise ArchiveError(f"{where}: {exc.args[0]!r} is missing") from exc
    except RecursionError as exc:  # a parser's own limit, should a value pass the depth check
        raise ArchiveError(f"{where}: a JSON value nests too deeply") from exc
    except (ValueError, TypeError, AttributeError) as exc:
        raise ArchiveError(f"{where}: {_first_line(exc)}") from exc


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    return lines[0][:300]


def _bounded(text: str) -> str:
    """`text` when no JSON value in it nests deeper than MAX_DEPTH; ArchiveError otherwise.
    Counted before any parser recurses: brackets inside strings do not count, and a line with
    fewer brackets than the bound is passed at once."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return text
    brackets = _NOT_BRACKET.sub("", _STRING.sub('""', text))
    depth = max(accumulate(1 if b in "[{" else -1 for b in brackets), default=0)
    if depth > MAX_DEPTH:
        raise ArchiveError(f"a JSON value nests {depth} levels deep (at most {MAX_DEPTH})")
    return text


def _checked_line(line: str) -> str:
    """A JSON line with every integer within SQLite's 64 bits, re-encoded with U+FFFD in place
    of any lone surrogate its escapes spell (either would fail the write mid-import)."""
    data = json.loads(_bounded(line), parse_int=_int64)
    if "\\u" not in line:
        return line
    cleaned = clean_json(data)
    return line if cleaned == data else json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))


def _int64(text: str) -> int:
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"the number {text[:30]} is out of range")
    return value


def _non_empty(lines: list[str]) -> Iterator[str]:
    return (line for line in lines if line.strip())
