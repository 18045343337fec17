"""`host.*`: what this host is (version, folders, default model, attached sessions)."""

from __future__ import annotations

from contract.host import DescribeRequest, DescribeValue
from host.api.registry import implements
from host.engine.engine import Engine


@implements("host.describe")
async def describe(engine: Engine, p: DescribeRequest) -> DescribeValue:
    return engine.describe()
