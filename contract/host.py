"""The `host.*` domain."""

from __future__ import annotations

from contract._base import WireModel


class DescribeRequest(WireModel):
    pass


class DescribeValue(WireModel):
    version: str
    cwd: str
    home: str
    provider: str | None = None
    model: str | None = None
    attached_sessions: list[str]
    host_instance_id: str
