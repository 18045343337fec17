"""Approvals: the answerable request frame, its answer and its resolution.

The rules are in docs/architecture.md, "Approvals and questions".
"""

from __future__ import annotations

from typing import Any, Literal

from contract._base import WireModel

ApprovalOutcome = Literal["allowed-once", "allowed-always", "rejected", "cancelled", "unavailable"]


class ApprovalRequested(WireModel):
    type: Literal["approval/requested"] = "approval/requested"
    session_id: str
    approval_id: str
    tool_name: str
    call_id: str | None = None
    reason: str | None = None
    arguments: Any = None


class ApprovalResolved(WireModel):
    type: Literal["approval/resolved"] = "approval/resolved"
    session_id: str
    approval_id: str
    outcome: ApprovalOutcome


class ApprovalAnswer(WireModel):
    """The `value` of a client-response answering `approval/requested`."""

    session_id: str
    approval_id: str
    outcome: Literal["allowed-once", "allowed-always", "rejected"]
