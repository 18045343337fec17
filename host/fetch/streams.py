"""`GET /api/events.mux` and `/api/events.host`: frames as server-requests over SSE.

The api yields `RpcRequest`s whose payload is a frame model (or batches of them); the carrier
wraps each into a `server-request` whose `method` is the frame's `type`. A frame published to
many subscribers is encoded once (`WireCache`), and a batch goes out as one write of many SSE
events. A host-side failure ends the stream with one `stream/error` frame; a closing
connection closes the api's generator at once.
"""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from starlette.types import Receive, Send

from contract._base import to_wire
from contract.errors import rpc_error
from contract.frames import STREAMS, StreamError
from contract.rpc import ServerRequest, new_rpc_id
from host.fetch.connection import header_list, start_response, stream_body
from host.fetch.inbound import json_bytes
from host.fetch.sse import HEARTBEAT, SSE_HEADERS, encode_event, with_heartbeat

log = logging.getLogger("host.fetch")


def frame_json(payload: Any) -> dict[str, Any]:
    """A frame model (or an already-dumped dict) as wire JSON."""
    frame = to_wire(payload)
    if not isinstance(frame, dict):
        raise TypeError(f"a frame must be a model or a dict, not {type(payload).__name__}")
    return frame


def to_server_request(key: str, item: Any, dev_validate: bool) -> bytes:
    """Wrap one api item (`RpcRequest` of a frame) as server-request JSON bytes."""
    payload = frame_json(item.payload)
    if dev_validate:
        STREAMS[key].validate_python(payload)
    message = ServerRequest(rpc_id=item.rpc_id, method=payload["type"], payload=payload)
    return json_bytes(message.dump())


def stream_error_bytes() -> bytes:
    """The last frame of a stream that failed on the host."""
    frame = StreamError(error=rpc_error("internal", "the stream failed on the host"))
    message = ServerRequest(rpc_id=new_rpc_id(), method=frame.type, payload=frame.dump())
    return json_bytes(message.dump())


MAX_WRITE = 256 * 1024
"""Bytes gathered into one body write before it is sent."""


WIRE_CACHE_SIZE = 256
"""Recently sent frames whose encoding is kept (about one burst of chunks)."""


class WireCache:
    """The encoded bytes of recently sent frames, so N subscribers cost one encoding.

    Keyed by the frame object's identity and its rpcId; an entry holds the frame itself, so the
    identity cannot be reused while the entry lives. A subscriber far behind the others may
    miss the cache and encode again: correct, only slower.

    Small on purpose: subscribers that keep up encode a frame within one batch of each other,
    and every entry keeps its frame alive — 8,192 of them held ~25 MB of old frames, the growth
    per turn of a long session (docs/decisions.md "Crash windows", memory).
    """

    def __init__(self, key: str, dev_validate: bool, size: int = WIRE_CACHE_SIZE) -> None:
        self.key = key
        self.dev_validate = dev_validate
        self._size = size
        self._entries: OrderedDict[int, tuple[Any, str, bytes]] = OrderedDict()

    def encode(self, item: Any) -> bytes:
        payload = item.payload
        found = self._entries.get(id(payload))
        if found is not None and found[0] is payload and found[1] == item.rpc_id:
            return found[2]
        data = to_server_request(self.key, item, self.dev_validate)
        self._entries[id(payload)] = (payload, item.rpc_id, data)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return data


async def sse_chunks(
    key: str,
    items: AsyncIterator[Any],
    heartbeat: float,
    dev_validate: bool,
    cache: WireCache | None = None,
) -> AsyncIterator[bytes]:
    """The SSE body: one event per frame, many per write, heartbeats when quiet, `stream/error`
    on failure."""
    wire = cache or WireCache(key, dev_validate, size=0)
    event_id = 0
    async with contextlib.aclosing(with_heartbeat(items, heartbeat)) as beats:
        try:
            async for item in beats:
                if item is None:
                    yield HEARTBEAT
                    continue
                batch: Sequence[Any] = item if isinstance(item, list | tuple) else (item,)
                out: list[bytes] = []
                size = 0
                for one in batch:
                    event = encode_event(event_id, wire.encode(one))
                    event_id += 1
                    out.append(event)
                    size += len(event)
                    if size >= MAX_WRITE:
                        yield b"".join(out)
                        out, size = [], 0
                if out:
                    yield b"".join(out)
        except Exception:
            log.exception("stream %s failed on the host", key)
            yield encode_event(event_id, stream_error_bytes())


async def serve_stream(
    key: str,
    source: Callable[[], AsyncIterator[Any]],
    receive: Receive,
    send: Send,
    *,
    heartbeat: float,
    dev_validate: bool,
    cache: WireCache | None = None,
) -> None:
    """Open the api's stream, then send it as SSE until it ends or the client goes."""
    items = source()
    await start_response(send, 200, header_list(SSE_HEADERS))
    await stream_body(receive, send, sse_chunks(key, items, heartbeat, dev_validate, cache))
