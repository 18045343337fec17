"""One live MCP server: a supervisor task that owns its transport and `ClientSession`
(docs/decisions.md, "MCP servers").

The SDK's rule: a transport context and its session are entered and left in one task, so the
supervisor enters both, publishes the session, and waits until it is told to stop, the tool list
changed, or the server went away. Calls run in the caller's task (a cancelled turn cancels the
request, and the SDK tells the server with `notifications/cancelled`). A stdio server's stderr
goes through a pipe whose reader keeps the last 64 KiB; its end of file is how a crash is seen.
There is no silent retry: a server that fails stays `failed` until Restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

import anyio

from host.engine.integrations.mcp import resources
from host.engine.integrations.mcp.config import Expanded, ServerEntry
from host.engine.integrations.mcp.failures import describe, leaf
from host.engine.integrations.mcp.resources import ResourceInfo
from host.engine.integrations.mcp.spawn import stdio_parameters
from host.engine.sandbox import Confinement

log = logging.getLogger(__name__)

State = Literal["starting", "ready", "failed", "stopped"]
STDERR_KEEP = 64 * 1024


class StderrTail:
    """The last 64 KiB a server wrote to stderr, read on a thread from a pipe; `on_eof` is
    called when every writer closed it (the process is gone)."""

    def __init__(self, on_eof: Callable[[], None]) -> None:
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = os.fdopen(write_fd, "w")
        self._reader = os.fdopen(read_fd, "rb", buffering=0)
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._on_eof = on_eof
        threading.Thread(target=self._pump, name="mcp-stderr", daemon=True).start()

    def _pump(self) -> None:
        try:
            while chunk := self._reader.read(65536):
                with self._lock:
                    self._buf += chunk
                    if len(self._buf) > STDERR_KEEP:
                        del self._buf[: len(self._buf) - STDERR_KEEP]
        except OSError:
            pass
        finally:
            self._reader.close()
            self._on_eof()

    def close_writer(self) -> None:
        with contextlib.suppress(OSError):
            self.writer.close()

    def text(self) -> str:
        with self._lock:
            return bytes(self._buf).decode("utf-8", "replace")


@dataclass(frozen=True)
class ToolInfo:
    raw_name: str
    title: str | None
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    task_required: bool


class McpConnection:
    """`start()` once; `stop()` ends it. `on_change` is called (on the loop) at every state or
    tool-list change."""

    def __init__(
        self,
        entry: ServerEntry,
        expanded: Expanded,
        cwd: Path,
        on_change: Callable[[McpConnection], None],
        *,
        workspace: Path,
        confinement: Confinement,
    ) -> None:
        self.entry = entry
        self._expanded = expanded
        self.cwd = cwd
        self.workspace = workspace
        self.confinement = confinement
        self._on_change = on_change
        self.state: State = "stopped"
        self.error: str | None = None
        self.tools: list[ToolInfo] = []
        self.server_info: str | None = None
        self.has_resources = False
        """The server declared the `resources` capability (docs/architecture.md, "The @ finder")."""
        self.resources_generation = 0
        """Bumped by `notifications/resources/list_changed`: a cached listing is stale."""
        self.sandboxed = False
        self.stderr: StderrTail | None = None
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._stopping = False
        self._refresh = False
        self._gone = False
        self._settled = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._problem: str | None = None
        """The last transport-level problem (a line that is not JSON-RPC …), for the error."""

    # ---- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self._loop = asyncio.get_running_loop()
        self.state, self.error, self.tools = "starting", None, []
        self._stopping = self._refresh = self._gone = False
        self._wake = asyncio.Event()
        self._settled = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp:{self.entry.name}")
        self._changed()

    async def wait_settled(self, bound: float) -> None:
        """Until the server is ready or failed (or `bound` s passed)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), bound)

    async def stop(self) -> None:
        task = self._task
        if task is None or task.done():
            if self.state not in ("failed",):
                self.state = "stopped"
            return
        self._stopping = True
        self._wake.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(task), 10)
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    def stderr_tail(self) -> str | None:
        return self.stderr.text() if self.stderr is not None else None

    def _changed(self) -> None:
        try:
            self._on_change(self)
        except Exception:  # a listener's fault never ends the server
            log.exception("mcp status listener failed")

    def _from_thread(self) -> None:
        """stderr reached end of file: the process is gone (called on the reader thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._mark_gone)

    def _mark_gone(self) -> None:
        self._gone = True
        self._wake.set()

    # ---- the supervisor -------------------------------------------------------------------

    async def _run(self) -> None:
        entry = self.entry
        try:
            async with AsyncExitStack() as stack:
                read, write = await self._open_transport(stack)
                from mcp import ClientSession
                from mcp.types import Implementation

                from contract import __version__

                session = ClientSession(
                    read,
                    write,
                    message_handler=self._on_message,
                    client_info=Implementation(name="harnessdesk", version=__version__),
                )
                await stack.enter_async_context(session)
                with anyio.fail_after(entry.startup_timeout):
                    init = await session.initialize()
                    info = init.server_info
                    self.server_info = f"{info.name} {info.version}".strip() if info else None
                    self.has_resources = init.capabilities.resources is not None
                    await self._list(session)
                self._session = session
                self.state = "ready"
                self._settled.set()
                self._changed()
                await self._serve(session)
        except asyncio.CancelledError:
            if self.state == "starting":
                self._fail("stopped while starting")
            raise
        except BaseException as exc:  # one clear error; the host keeps answering
            if isinstance(leaf(exc), TimeoutError) and self.state == "starting":
                why = f" (the last problem: {self._problem})" if self._problem else ""
                self._fail(f"did not start within {entry.startup_timeout:g} s{why}")
            elif self.state != "failed":
                self._fail(describe(exc))
        finally:
            self._session = None
            if self.stderr is not None:
                self.stderr.close_writer()
            if self._stopping and self.state != "failed":
                self.state = "stopped"
            elif self.state not in ("failed", "stopped"):
                self._fail(self.error or "the server closed the connection")
            self._settled.set()
            self._changed()

    async def _serve(self, session: Any) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            if self._gone:
                self._fail("the server process exited")
                return
            if self._refresh:
                self._refresh = False
                try:
                    with anyio.fail_after(self.entry.startup_timeout):
                        await self._list(session)
                    self._changed()
                except Exception as exc:  # keep the previous set
                    log.warning("mcp %s: re-listing tools failed: %s", self.entry.name, describe(exc))

    async def _open_transport(self, stack: AsyncExitStack) -> tuple[Any, Any]:
        entry, x = self.entry, self._expanded
        if entry.transport == "stdio":
            from mcp.client.stdio import stdio_client

            self.stderr = StderrTail(self._from_thread)
            params, self.sandboxed = stdio_parameters(
                x, self.cwd, workspace=self.workspace, network=entry.network, confinement=self.confinement
            )
            streams = await stack.enter_async_context(stdio_client(params, errlog=self.stderr.writer))
            self.stderr.close_writer()  # the child holds its copy; EOF means it is gone
            return streams[0], streams[1]
        import httpx2

        if entry.transport == "sse":
            from mcp.client.sse import sse_client

            streams = await stack.enter_async_context(sse_client(x.url, headers=x.headers))
            return streams[0], streams[1]
        from mcp.client.streamable_http import streamable_http_client

        client = await stack.enter_async_context(httpx2.AsyncClient(headers=x.headers))
        streams = await stack.enter_async_context(streamable_http_client(x.url, http_client=client))
        return streams[0], streams[1]

    async def _list(self, session: Any) -> None:
        from mcp.types import PaginatedRequestParams

        found: list[ToolInfo] = []
        seen: set[str] = set()
        cursor: str | None = None
        for _ in range(100):
            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
            for tool in page.tools:
                if tool.name in seen:
                    raise ValueError(f"the server lists the tool {tool.name!r} twice")
                seen.add(tool.name)
                hints = tool.annotations
                execution = getattr(tool, "execution", None)
                found.append(
                    ToolInfo(
                        raw_name=tool.name,
                        title=tool.title or (hints.title if hints else None),
                        description=tool.description or "",
                        input_schema=dict(tool.input_schema or {"type": "object"}),
                        read_only=bool(hints and hints.read_only_hint),
                        task_required=getattr(execution, "task_support", None) == "required",
                    )
                )
            cursor = page.next_cursor
            if not cursor:
                break
        self.tools = found

    async def _on_message(self, message: Any) -> None:
        from mcp.types import ResourceListChangedNotification, ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification):
            self._refresh = True
            self._wake.set()
        elif isinstance(message, ResourceListChangedNotification):
            self.resources_generation += 1
        elif isinstance(message, Exception):
            self._problem = describe(message)
            log.info("mcp %s: %s", self.entry.name, self._problem)

    def _fail(self, why: str) -> None:
        self.state = "failed"
        self.error = why
        self._settled.set()
        self._changed()

    # ---- calls ----------------------------------------------------------------------------

    async def call(self, raw_name: str, arguments: dict[str, Any]) -> Any:
        """One `tools/call` (raises on a transport error or the call timeout)."""
        session = self._session
        if session is None or self.state != "ready":
            raise ConnectionError(
                f"the server {self.entry.name!r} is {self.state}: {self.error or ''}".strip()
            )
        with anyio.fail_after(self.entry.call_timeout):
            return await session.call_tool(raw_name, arguments)

    def _ready_session(self) -> Any:
        session = self._session
        if session is None or self.state != "ready":
            raise ConnectionError(f"the server {self.entry.name!r} is {self.state}")
        return session

    async def list_resources(self) -> list[ResourceInfo]:
        """Every `resources/list` page (bounded in count; the caller bounds the time); none for a
        server without the capability."""
        session = self._ready_session()
        return await resources.list_all(session) if self.has_resources else []

    async def read_resource(self, uri: str) -> list[Any]:
        """One `resources/read`: its contents (text or blob parts), bounded by the call timeout."""
        session = self._ready_session()
        if not self.has_resources:
            raise ConnectionError(f"the server {self.entry.name!r} offers no resources")
        with anyio.fail_after(self.entry.call_timeout):
            result = await session.read_resource(uri)
        return list(getattr(result, "contents", None) or [])
