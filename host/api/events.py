"""`events.mux` and `events.host`: the engine's bus subscriptions as narrow server-requests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from contract.rpc import RpcRequest
from host.engine.bus import Subscription
from host.engine.engine import Engine


async def _drain(sub: Subscription) -> AsyncIterator[RpcRequest[Any]]:
    """Yield until the subscription ends; leaving early (client gone) frees its slot at once."""
    try:
        async for rpc_id, frame in sub:
            yield RpcRequest[Any](rpc_id=rpc_id, payload=frame)
    finally:
        sub.close()


class EventsApi:
    def __init__(self, engine: Engine, queue_limit: int | None = None) -> None:
        self.engine = engine
        self.queue_limit = queue_limit

    def mux(self) -> AsyncIterator[RpcRequest[Any]]:
        """Per attached session: subscribed, pending replays (same rpcId), queue; then live."""
        return _drain(self.engine.subscribe_mux(self.queue_limit))

    def host(self) -> AsyncIterator[RpcRequest[Any]]:
        return _drain(self.engine.subscribe_host(self.queue_limit))
