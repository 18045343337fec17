"""`events.mux` and `events.host`: the engine's bus subscriptions as narrow server-requests.

Each item the carrier gets is a batch: every frame ready at that moment (at most `BATCH`), so
a burst goes out in a few large writes instead of one write per frame.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from contract.rpc import RpcRequest
from host.engine.bus import Subscription
from host.engine.engine import Engine
from host.fetch.caller import caller_privileged

BATCH = 512
"""Most frames handed to the carrier in one item (one SSE write)."""


PRIVILEGED_FRAMES = frozenset({"terminal/output", "terminal/closed"})
"""What only a privileged caller's stream carries: the person's shell's output and its end (docs/decisions.md,
"Terminal and files"); a `--trusted-host` browser may not open, type into or attach a terminal,
and does not read one either."""


async def _drain(sub: Subscription, privileged: bool = True) -> AsyncIterator[list[RpcRequest[Any]]]:
    """Yield batches until the subscription ends; leaving early (client gone) frees its slot."""
    try:
        while items := await sub.batch(BATCH):
            batch = [
                RpcRequest[Any].model_construct(rpc_id=rpc_id, payload=frame)
                for rpc_id, frame in items
                if privileged or getattr(frame, "type", None) not in PRIVILEGED_FRAMES
            ]
            if batch:
                yield batch
    finally:
        sub.close()


class EventsApi:
    def __init__(self, engine: Engine, queue_limit: int | None = None) -> None:
        self.engine = engine
        self.queue_limit = queue_limit

    def mux(self) -> AsyncIterator[list[RpcRequest[Any]]]:
        """Per attached session: subscribed, pending replays (same rpcId), queue; then live."""
        return _drain(self.engine.host.subscribe_mux(self.queue_limit), caller_privileged())

    def host(self) -> AsyncIterator[list[RpcRequest[Any]]]:
        return _drain(self.engine.host.subscribe_host(self.queue_limit))
