"""Build the contract's deferred validators while a freshly started host is idle.

Contract models are built on first use (docs/decisions.md, "Performance and packaging"), which
takes a quarter of a second off `serve`'s start; `warm_contract` then builds what the first
requests need, one model per event-loop step, while the user's browser is still starting, so
the first requests do not pay for it either and a request arriving meanwhile waits for at most
one model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

from contract.errors import RPC_ERROR
from contract.frames import HOST_FRAME, MUX_FRAME
from contract.methods import METHODS
from contract.rpc import RPC_MESSAGE, RPC_RECEIPT, request_model


def _builders() -> Iterator[Callable[[], object]]:
    """The envelopes, then each method's request and value, in method-map order."""
    yield from (RPC_MESSAGE.rebuild, RPC_RECEIPT.rebuild, RPC_ERROR.rebuild)
    for method in METHODS.values():
        yield request_model(method.request).model_rebuild
        yield method.value.model_rebuild
    yield from (HOST_FRAME.rebuild, MUX_FRAME.rebuild)


async def warm_contract() -> int:
    """Build every deferred validator the carrier uses; returns how many steps it took."""
    steps = 0
    for build in _builders():
        build()  # a no-op for what a request already built
        steps += 1
        await asyncio.sleep(0)
    return steps
