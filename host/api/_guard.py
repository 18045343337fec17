"""Turn engine results and engine exceptions into narrow RPC responses, in one place."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from contract.errors import rpc_error
from contract.rpc import RpcRequest, RpcResponse, fail, ok
from host.engine.errors import EngineError

V = TypeVar("V", bound=BaseModel)


async def answer(request: RpcRequest[Any], work: Callable[[], Awaitable[BaseModel]]) -> RpcResponse[Any]:
    """Run `work`; a business failure becomes its typed error, the rpcId is always echoed.

    Cancellation (the caller went away) becomes `cancelled`; anything else is a host bug and
    propagates so the carrier answers 500.
    """
    try:
        value = await work()
    except EngineError as exc:
        return fail(request.rpc_id, rpc_error(exc.code, str(exc), **exc.details()))
    except asyncio.CancelledError:
        return fail(request.rpc_id, rpc_error("cancelled", "the request was cancelled"))
    return ok(request.rpc_id, value)
