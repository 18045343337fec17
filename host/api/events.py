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

BATCH = 512
"""Most frames handed to the carrier in one item (one SSE write)."""


async def _drain(sub: Subscription) -> AsyncIterator[list[RpcRequest[Any]]]:
    """Yield batches until the subscription ends; leaving early (client gone) frees its slot."""
    try:
        while items := await sub.batch(BATCH):
            yield [RpcRequest[Any].model_construct(rpc_id=rpc_id, payload=frame) for rpc_id, frame in items]
    finally:
        sub.close()


class EventsApi:
    def __init__(self, engine: Engine, queue_limit: int | None = None) -> None:
        self.engine = engine
        self.queue_limit = queue_limit

    def mux(self) -> AsyncIterator[list[RpcRequest[Any]]]:
        """Per attached session: subscribed, pending replays (same rpcId), queue; then live."""
        return _drain(self.engine.host.subscribe_mux(self.queue_limit))

    def host(self) -> AsyncIterator[list[RpcRequest[Any]]]:
        return _drain(self.engine.host.subscribe_host(self.queue_limit))
