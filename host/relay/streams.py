"""The streams with the remote hosts' frames (docs/decisions.md, "Remote hosts").

Each subscriber of `events.mux` / `events.host` gets this host's frames and, for every connected
remote host, a stream of its own from that host (so the remote's opening frames — each attached
session's `session/subscribed`, its pending requests with their rpcIds, its queue — reach every
window that opens). A remote host's part ends quietly when its link drops (`host/remote-status`
says reconnecting); when the link is back a new part opens, and the window, told `connected`,
rebuilds what it shows of that host (the contract's reconnect = rebuild). A remote part that ends
while its link stands (its subscriber fell behind there) ends the whole stream with
`stream/error`, as a local laggard would: the window reconnects and rebuilds.

What a remote host says about itself only (its settings, credentials, model downloads,
workspaces, its own remote hosts) stays there: the window's settings are this host's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from pydantic import BaseModel

from contract.errors import rpc_error
from contract.frames import ANSWERABLE_FRAMES, StreamError
from contract.rpc import RpcRequest, new_rpc_id
from host.fetch.caller import caller_privileged
from host.fetch.errors import TransportError
from host.fetch.proxy import ApiProxy
from host.relay.links import Links, Remotes
from host.relay.routes import RouteTable

log = logging.getLogger(__name__)

BATCH = 512
QUEUED = 16
"""Batches a merged stream holds for its reader. Small on purpose: a reader that stops reading
stops the pumps, so the engine's bus sees the stall and cuts that subscriber as it would without
the relay, instead of the relay buffering the whole stream in memory (docs/architecture.md,
"Remote hosts and the relay")."""
HOST_FRAMES_RELAYED = frozenset(
    {
        "host/session-added",
        "host/session-removed",
        "host/session-status",
        "host/session-attention",
        "host/agent-error",
        "host/session-preset-changed",
        "host/commands-changed",
        "host/mcp-changed",
        "host/model-status",
        "host/models-changed",
    }
)
"""A remote host's host-stream frames that concern its sessions (the rest stay there)."""
MUX_FRAMES_KEPT_THERE = frozenset({"stream/error", "host/remote-status", "stream/opened"})
PRIVILEGED_FRAMES = frozenset({"terminal/output", "terminal/closed"})
"""A remote's frames only a privileged caller's stream carries, as this host's own
(host/api/events.py: the person's shell's output)."""

Item = RpcRequest[Any]
_END = object()


def item(rpc_id: str, frame: BaseModel) -> Item:
    return RpcRequest[Any].model_construct(rpc_id=rpc_id, payload=frame)


class RelayParts(Protocol):
    """What the merged streams use of the relay (host/relay/api.py's RelayApi)."""

    local: ApiProxy
    links: Links
    remotes: Remotes
    routes: RouteTable

    def host_ids(self) -> list[str]: ...


class RelayEvents:
    def __init__(self, relay: RelayParts) -> None:
        self._relay = relay
        self._open: weakref.WeakSet[MergedStream] = weakref.WeakSet()

    def mux(self) -> AsyncIterator[list[Item]]:
        stream = self._merged("events.mux", self._relay.local.events.mux(), [])
        return stream if caller_privileged() else _without(stream, PRIVILEGED_FRAMES)

    def host(self) -> AsyncIterator[list[Item]]:
        prompts = [item(rpc_id, frame) for rpc_id, frame in self._relay.links.pending_prompts()]
        return self._merged("events.host", self._relay.local.events.host(), prompts)

    def _merged(self, key: str, local: AsyncIterator[Any], first: list[Item]) -> AsyncIterator[list[Item]]:
        stream = MergedStream(self._relay, key, local, first)
        self._open.add(stream)
        return stream.frames()

    def links_changed(self) -> None:
        for stream in list(self._open):
            stream.links_changed()


async def _without(stream: AsyncIterator[list[Item]], kinds: frozenset[str]) -> AsyncIterator[list[Item]]:
    """`stream` less the frames of `kinds` (an unprivileged caller's mux)."""
    try:
        async for batch in stream:
            kept = [i for i in batch if getattr(i.payload, "type", None) not in kinds]
            if kept:
                yield kept
    finally:
        await stream.aclose()  # type: ignore[attr-defined]


class MergedStream:
    def __init__(self, relay: RelayParts, key: str, local: AsyncIterator[Any], first: list[Item]) -> None:
        self._relay = relay
        self._key = key
        self._local = local
        self._queue: asyncio.Queue[Any] = asyncio.Queue(QUEUED)
        if first:
            self._queue.put_nowait(first)
        self._parts: dict[str, tuple[int, asyncio.Task[None]]] = {}
        """host → (generation, the task pumping its frames)."""
        self._tasks: list[asyncio.Task[None]] = []
        self._ended = False

    async def frames(self) -> AsyncIterator[list[Item]]:
        self._tasks.append(asyncio.create_task(self._pump_local()))
        self.links_changed()
        try:
            while True:
                first = await self._queue.get()
                if first is _END:
                    return
                batch = first if isinstance(first, list) else [first]
                while len(batch) < BATCH and not self._queue.empty():
                    more = self._queue.get_nowait()
                    if more is _END:
                        if batch:
                            yield batch
                        return
                    batch = [*batch, *more] if isinstance(more, list) else [*batch, more]
                yield batch
        finally:
            self._ended = True
            tasks = self._tasks + [task for _, task in self._parts.values()]
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            aclose: Callable[[], Any] | None = getattr(self._local, "aclose", None)
            if aclose is not None:
                with contextlib.suppress(Exception):
                    await aclose()

    async def _put(self, value: Any) -> None:
        """Waits while the reader is behind (back-pressure to the bus or the remote's stream)."""
        if not self._ended:
            await self._queue.put(value)

    def _cut(self, why: str) -> None:
        """End this stream with `stream/error` (the window reconnects and rebuilds)."""
        if self._ended:
            return
        self._ended = True
        while not self._queue.empty():
            self._queue.get_nowait()
        self._queue.put_nowait([item(new_rpc_id(), StreamError(error=rpc_error("internal", why)))])
        self._queue.put_nowait(_END)

    async def _pump_local(self) -> None:
        try:
            async for batch in self._local:
                await self._put(batch)
        finally:
            if not self._ended:  # the bus ended it (a stall cut, the host closing): so do we
                await self._queue.put(_END)

    def links_changed(self) -> None:
        """Open a part for every host whose link is new; parts of gone links end by themselves."""
        if self._ended:
            return
        for host_id in self._relay.host_ids():
            link = self._relay.links.link(host_id)
            if link is None:
                continue
            current = self._parts.get(host_id)
            if current is not None and current[0] == link.generation and not current[1].done():
                continue
            if current is not None:
                current[1].cancel()
            task = asyncio.create_task(self._pump_remote(host_id, link.generation))
            self._parts[host_id] = (link.generation, task)

    async def _pump_remote(self, host_id: str, generation: int) -> None:
        remote = self._relay.remotes.get(host_id)
        if remote is None or remote.generation != generation:
            return
        routes = self._relay.routes
        mux = self._key == "events.mux"
        ended_badly = False
        try:
            async with remote.client.stream(self._key) as frames:
                async for rpc_id, frame in frames:
                    kind = getattr(frame, "type", "")
                    if kind == "stream/error":
                        ended_badly = True
                        break
                    if mux and kind in MUX_FRAMES_KEPT_THERE:
                        continue
                    if not mux and kind not in HOST_FRAMES_RELAYED:
                        continue
                    routes.record_frame(frame, host_id)
                    if kind in ANSWERABLE_FRAMES:
                        routes.asked(rpc_id, host_id)
                    if kind == "host/session-added":
                        frame = frame.model_copy(update={"host_id": host_id})
                    await self._put(item(rpc_id, frame))
        except (TransportError, OSError) as exc:
            log.info("%s of remote %s ended: %s", self._key, host_id, exc)
        except asyncio.CancelledError:
            raise
        for _ in range(30):  # a link that dropped is told a moment after its stream broke
            link = self._relay.links.link(host_id)
            if link is None or link.generation != generation or self._ended:
                return
            await asyncio.sleep(0.1)
        if not self._ended:
            # the link stands but its stream ended: what came meanwhile is unknown here
            self._cut(
                "a remote host's stream ended; reconnect and rebuild"
                if ended_badly
                else "a remote stream ended"
            )
