"""`events.mux` and `events.host`: the engine's bus subscriptions as narrow server-requests.

Each item the carrier gets is a batch: every frame ready at that moment (at most `BATCH`), so
a burst goes out in a few large writes instead of one write per frame.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from contract.frames import StreamOpened
from contract.rpc import RpcRequest, new_rpc_id
from host.engine.engine import Engine
from host.engine.sessions.bus import Subscription
from host.fetch.caller import caller_privileged

BATCH = 512
"""Most frames handed to the carrier in one item (one SSE write)."""


PRIVILEGED_FRAMES = frozenset({"terminal/output", "terminal/closed"})
"""What only a privileged caller's stream carries: the person's shell's output and its end (docs/decisions.md,
"Terminal and files"); a `--trusted-host` browser may not open, type into or attach a terminal,
and does not read one either."""


FOCUSED_EVENTS = frozenset({"assistant/chunk"})
"""Session events a mux stream carries only for the sessions its page shows (`host.focus`):
the streamed deltas, the bulk of a turn. Every other event — a message, a turn's end, a status —
still comes for every session (docs/decisions/performance-under-load.md)."""


def _off_screen_chunk(frame: Any, shown: frozenset[str]) -> bool:
    if getattr(frame, "type", None) != "session/event":
        return False
    return frame.event.type in FOCUSED_EVENTS and frame.session_id not in shown


async def _drain(
    sub: Subscription, privileged: bool = True, engine: Engine | None = None
) -> AsyncIterator[list[RpcRequest[Any]]]:
    """Yield batches until the subscription ends; leaving early (client gone) frees its slot.
    With `engine` (the mux), the stream first names itself (`stream/opened`) and leaves out the
    chunks of sessions its page does not show once it has said which it shows (`host.focus`)."""
    stream_id = engine.host.open_focus() if engine is not None else None
    try:
        if stream_id is not None:
            yield [
                RpcRequest[Any].model_construct(
                    rpc_id=new_rpc_id(), payload=StreamOpened(stream_id=stream_id)
                )
            ]
        while items := await sub.batch(BATCH):
            shown = engine.host.shown(stream_id) if engine is not None and stream_id is not None else None
            batch = [
                RpcRequest[Any].model_construct(rpc_id=rpc_id, payload=frame)
                for rpc_id, frame in items
                if (privileged or getattr(frame, "type", None) not in PRIVILEGED_FRAMES)
                and (shown is None or not _off_screen_chunk(frame, shown))
            ]
            if batch:
                yield batch
    finally:
        sub.close()
        if engine is not None and stream_id is not None:
            engine.host.close_focus(stream_id)


class EventsApi:
    def __init__(self, engine: Engine, queue_limit: int | None = None) -> None:
        self.engine = engine
        self.queue_limit = queue_limit

    def mux(self) -> AsyncIterator[list[RpcRequest[Any]]]:
        """Per attached session: subscribed, pending replays (same rpcId), queue; then live."""
        return _drain(self.engine.host.subscribe_mux(self.queue_limit), caller_privileged(), self.engine)

    def host(self) -> AsyncIterator[list[RpcRequest[Any]]]:
        return _drain(self.engine.host.subscribe_host(self.queue_limit))
