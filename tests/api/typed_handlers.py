"""A handler registered through its method's typed handle, checked by mypy strict
(tests/api/test_typed_calls.py makes copies with a wrong request and a wrong value and expects
mypy to fail each). Never called: registering here would implement `host.describe` twice."""

from __future__ import annotations

from contract.host import DescribeRequest, DescribeValue
from contract.methods import HOST_DESCRIBE
from host.api.registry import implements
from host.engine.engine import Engine


def register_describe() -> None:
    @implements(HOST_DESCRIBE)
    async def describe(engine: Engine, p: DescribeRequest) -> DescribeValue:
        raise AssertionError("never run")

    @implements(HOST_DESCRIBE)
    async def describe_with_rpc_id(engine: Engine, p: DescribeRequest, rpc_id: str) -> DescribeValue:
        raise AssertionError("never run")
