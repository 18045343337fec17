"""MCP resources for the `@` finder: `resources/list` bounded in count and time, cached per live
connection, and `resources/read` turned into an attached text part (docs/architecture.md,
"The @ finder"; docs/decisions.md, "MCP resources in the @ finder").

A listing is kept for `TTL_S` seconds or until the server sends
`notifications/resources/list_changed`; a stale one keeps answering while it is listed again in
the background. Only a server's first listing is waited for, and only for `FIND_WAIT_S` from
when it started: a hung or failing server costs the finder that once, then shows as a problem
line until a later try succeeds.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from contract.content import Attached, TextBlock
from host.engine.files.finder.attach import fence_for
from host.engine.integrations.mcp.failures import describe

LIST_MAX = 500
"""Resources kept per server (a longer listing is cut there)."""
LIST_PAGES = 50
"""`nextCursor` pages followed at most."""
LIST_BOUND_S = 5.0
"""One server's whole listing, every page included."""
TTL_S = 30.0
"""How long a listing is used before it is listed again (in the background)."""
FIND_WAIT_S = 1.5
"""How long a finder search waits for a server's first listing."""


@dataclass(frozen=True)
class ResourceInfo:
    uri: str
    name: str
    title: str | None
    mime_type: str | None
    description: str | None
    size: int | None


class Listable(Protocol):
    """What the directory needs of a connection (host/engine/integrations/mcp/connection.py)."""

    resources_generation: int

    async def list_resources(self) -> list[ResourceInfo]: ...


async def list_all(session: Any) -> list[ResourceInfo]:
    """Every page of `resources/list` (at most `LIST_PAGES` pages, `LIST_MAX` resources; a uri
    listed twice is kept once); the caller bounds the time."""
    from mcp.types import PaginatedRequestParams

    found: list[ResourceInfo] = []
    seen: set[str] = set()
    cursor: str | None = None
    for _ in range(LIST_PAGES):
        page = await session.list_resources(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        for r in page.resources:
            uri = str(r.uri)
            if uri in seen:
                continue
            seen.add(uri)
            size = getattr(r, "size", None)
            found.append(
                ResourceInfo(
                    uri=uri,
                    name=r.name,
                    title=getattr(r, "title", None),
                    mime_type=r.mime_type,
                    description=(r.description or "")[:300] or None,
                    size=size if isinstance(size, int) and size >= 0 else None,
                )
            )
            if len(found) >= LIST_MAX:
                return found
        cursor = page.next_cursor
        if not cursor:
            break
    return found


@dataclass
class _Slot:
    items: list[ResourceInfo] | None = None
    error: str | None = None
    generation: int = -1
    listed_at: float = 0.0
    task: asyncio.Task[None] | None = None
    wait_until: float = 0.0


@dataclass
class ResourceDirectory:
    """Listings per live connection (keyed by identity: a restarted server is a new one)."""

    _slots: dict[int, tuple[Listable, _Slot]] = field(default_factory=dict)

    async def gather(
        self, lives: Sequence[tuple[str, Listable]]
    ) -> tuple[list[tuple[str, ResourceInfo]], list[str]]:
        """(server, resource) for every listed resource of `lives`, and a line per server whose
        listing failed or is not there yet."""
        now = time.monotonic()
        present = {id(live) for _, live in lives}
        for key in [k for k in self._slots if k not in present]:
            _, gone = self._slots.pop(key)
            if gone.task is not None:
                gone.task.cancel()
        waits: list[tuple[asyncio.Task[None], float]] = []
        for _, live in lives:
            slot = self._slot(live)
            stale = slot.generation != live.resources_generation or now - slot.listed_at > TTL_S
            if stale and slot.task is None:
                slot.task = asyncio.ensure_future(self._list(live, slot))
                slot.wait_until = now + FIND_WAIT_S
            if slot.task is not None and slot.items is None and slot.error is None:
                waits.append((slot.task, slot.wait_until))
        if waits:
            bound = max(until for _, until in waits) - now
            if bound > 0:
                await asyncio.wait([t for t, _ in waits], timeout=bound)
        found: list[tuple[str, ResourceInfo]] = []
        problems: list[str] = []
        for name, live in lives:
            slot = self._slot(live)
            if slot.items:
                found.extend((name, info) for info in slot.items)
            if slot.error is not None:
                problems.append(f"{name}: {slot.error}")
            elif slot.items is None:
                problems.append(f"{name}: its resources are still being listed")
        return found, problems

    def _slot(self, live: Listable) -> _Slot:
        got = self._slots.get(id(live))
        if got is None or got[0] is not live:
            got = self._slots[id(live)] = (live, _Slot())
        return got[1]

    async def _list(self, live: Listable, slot: _Slot) -> None:
        generation = live.resources_generation
        try:
            with anyio.fail_after(LIST_BOUND_S):
                slot.items = await live.list_resources()
            slot.error = None
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            slot.error = f"listing its resources took longer than {LIST_BOUND_S:g} s"
        except Exception as exc:  # shown as a problem line; the files still answer
            slot.error = describe(exc)[:300]
        finally:
            slot.generation = generation
            slot.listed_at = time.monotonic()
            slot.task = None

    def name_of(self, live: Listable, uri: str) -> str | None:
        """The listed name of `uri` on `live`, when its listing holds it."""
        got = self._slots.get(id(live))
        if got is None or got[0] is not live or not got[1].items:
            return None
        return next((info.name for info in got[1].items if info.uri == uri), None)

    def forget(self) -> None:
        for _, slot in self._slots.values():
            if slot.task is not None:
                slot.task.cancel()
        self._slots.clear()

    async def close(self) -> None:
        tasks = [s.task for _, s in self._slots.values() if s.task is not None]
        self.forget()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


def label(server: str, name: str) -> str:
    """What the finder ranks and a chip shows: `server:name`."""
    return f"{server}:{name}"


def _blob_size(blob: str) -> int:
    try:
        return len(base64.b64decode(blob, validate=False))
    except (binascii.Error, ValueError):
        return len(blob) * 3 // 4


def resource_block(server: str, uri: str, name: str, contents: Sequence[Any], cap: int) -> TextBlock:
    """The text part for a read resource: its text contents (at most `cap` bytes in all, said
    when cut); a binary part is named with its mime type and size, never inlined."""
    shown = label(server, name)
    texts: list[str] = []
    notes: list[str] = []
    mime: str | None = None
    total = 0
    for part in contents:
        mime = mime or getattr(part, "mime_type", None)
        text = getattr(part, "text", None)
        if isinstance(text, str):
            texts.append(text)
            total += len(text.encode("utf-8"))
            continue
        blob = getattr(part, "blob", None)
        size = _blob_size(blob) if isinstance(blob, str) else 0
        total += size
        kind = getattr(part, "mime_type", None) or "unknown type"
        notes.append(f"A binary part ({kind}, {size:,} bytes) of `{part.uri}` is not attached.")
    body_bytes = "\n".join(texts).encode("utf-8")
    cut = len(body_bytes) > cap
    body = body_bytes[:cap].decode("utf-8", "ignore")
    where = f"{uri}, {mime}" if mime else uri
    lines: list[str] = []
    if texts:
        fence = fence_for(body)
        head = f"Contents of the MCP resource `{shown}` ({where})"
        head += f" (its first {cap:,} of {len(body_bytes):,} bytes):" if cut else ":"
        lines += [head, fence, body, fence]
    else:
        lines.append(f"The MCP resource `{shown}` ({where}) has no text content.")
    lines += notes
    meta = Attached(
        kind="resource",
        path=shown,
        size=total,
        truncated=cut,
        binary=not texts and bool(notes),
        server=server,
        uri=uri,
        mime_type=mime,
    )
    return TextBlock(text="\n".join(lines), attached=meta)
