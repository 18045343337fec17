"""A session's MCP resources for the `@` finder and for `session.prompt`'s `attach`: only the
servers that are ready and allowed (enabled; for a folder's `.mcp.json`, trusted and approved),
exactly those whose tools a session gets (docs/architecture.md, "The @ finder")."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from contract.content import TextBlock
from host.engine.errors import AttachmentError, EngineError
from host.engine.integrations.mcp.failures import describe
from host.engine.integrations.mcp.resources import (
    FIND_WAIT_S,
    ResourceDirectory,
    ResourceInfo,
    resource_block,
)
from host.engine.integrations.mcp.service import McpService

log = logging.getLogger(__name__)

SYNC_S = 5.0
"""How often a finder search reads the project's MCP config again (starting what may run)."""

PLACE_S = 60.0
"""How long a session's folder and project root are kept (a session's folder does not move)."""

Place = Callable[[str], Awaitable[tuple[Path, Path, str | None]]]


class McpResources:
    """`find` lists, `read` attaches; `place` gives a session's (cwd, project root, workspace)."""

    def __init__(self, servers: McpService, place: Place) -> None:
        self._servers = servers
        self._place = place
        self._directories: dict[str, ResourceDirectory] = {}
        """One per project root (a listing belongs to its project's live connections)."""
        self._synced: dict[str, float] = {}
        self._first_seen: dict[str, dict[int, float]] = {}
        """Per project, when each starting connection was first waited for."""
        self._syncing: asyncio.Future[Any] | None = None
        self._places: dict[str, tuple[float, Path, Path]] = {}
        """session id → (when, cwd, root): a keystroke does not read the store and the disk."""

    def directory(self, root: Path) -> ResourceDirectory:
        return self._directories.setdefault(str(root), ResourceDirectory())

    async def _where(self, session_id: str) -> tuple[Path, Path]:
        now = time.monotonic()
        got = self._places.get(session_id)
        if got is not None and now - got[0] < PLACE_S:
            return got[1], got[2]
        cwd, root, _ = await self._place(session_id)
        if len(self._places) > 256:
            self._places.clear()
        self._places[session_id] = (now, cwd, root)
        return cwd, root

    async def find(self, session_id: str) -> tuple[list[tuple[str, ResourceInfo]], list[str]]:
        """(server, resource) of the session's ready servers, and one line per server that could
        not list them (yet). A starting server is waited for `FIND_WAIT_S` once."""
        try:
            cwd, root = await self._where(session_id)
        except EngineError:  # a session with no folder of its own has no project servers
            return [], []
        now = time.monotonic()
        last = self._synced.get(str(root))
        if last is None or now - last >= SYNC_S:
            self._synced[str(root)] = now
            if last is None:  # the first search starts the servers before it looks at them
                await self._servers.sync(root, cwd, wait=False)
            elif self._syncing is None or self._syncing.done():  # later ones: in the background
                self._syncing = asyncio.ensure_future(self._servers.sync(root, cwd, wait=False))
                self._syncing.add_done_callback(_quiet)
        starting = self._servers.starting(root)
        seen = self._first_seen.setdefault(str(root), {})
        for gone in set(seen) - {id(live) for live in starting}:
            del seen[gone]
        waits = []
        for live in starting:
            until = seen.setdefault(id(live), now + FIND_WAIT_S)
            if until > now:
                waits.append(live.wait_settled(until - now))
        if waits:
            await asyncio.gather(*waits)
        found, problems = await self.directory(root).gather(self._servers.ready(root))
        problems += [f"{live.entry.name}: still starting" for live in self._servers.starting(root)]
        return found, problems

    async def read(self, session_id: str, server: str, uri: str, cap: int) -> TextBlock:
        """The text part for one resource, read now (AttachmentError when it cannot be)."""
        cwd, root, _ = await self._place(session_id)
        await self._servers.sync(root, cwd)
        live = dict(self._servers.ready(root)).get(server)
        if live is None:
            state = self._servers.state_of(root, server)
            why = f"is {state}" if state else "is not one of this session's servers"
            raise AttachmentError(f"the MCP server {server!r} {why}: {uri} cannot be read")
        try:
            contents = await live.read_resource(uri)
        except TimeoutError as exc:
            took = f"{live.entry.call_timeout:g} s"
            raise AttachmentError(f"{server}: reading {uri} took longer than {took}") from exc
        except Exception as exc:  # the server's own words, in one line
            raise AttachmentError(f"{server}: {uri} could not be read: {describe(exc)}") from exc
        name = self.directory(root).name_of(live, uri) or uri.rstrip("/").rsplit("/", 1)[-1] or uri
        return resource_block(server, uri, name, contents, cap)

    async def close(self) -> None:
        if self._syncing is not None and not self._syncing.done():
            self._syncing.cancel()
        for directory in self._directories.values():
            await directory.close()


def _quiet(task: asyncio.Future[Any]) -> None:
    """A background re-read that failed is logged (the next search tries again)."""
    if not task.cancelled() and task.exception() is not None:
        log.warning("mcp: re-reading a project's servers failed: %s", task.exception())
