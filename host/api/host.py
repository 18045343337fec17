"""`host.*`."""

from __future__ import annotations

from typing import Any

from contract.host import DescribeRequest, DescribeValue
from contract.rpc import RpcRequest, RpcResponse
from host.api._guard import answer
from host.engine.engine import Engine


class HostApi:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def describe(self, req: RpcRequest[DescribeRequest]) -> RpcResponse[Any]:
        async def work() -> DescribeValue:
            return self.engine.describe()

        return await answer(req, work)
