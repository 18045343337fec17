"""Subagents (docs/architecture.md, "Subagents")."""

from __future__ import annotations

from contract.errors import (
    ChildSessionDetails,
    SubagentChildDetails,
    SubagentDiagnosticDetails,
    SubagentParentDetails,
)
from host.engine.errors.base import EngineError


class SubagentParentUnavailable(EngineError[SubagentParentDetails]):
    """`subagent.prompt`: the parent cannot run an agent here (gone, or the host is closing)."""

    code = "subagent-parent-unavailable"

    def __init__(self, parent_id: str, message: str) -> None:
        super().__init__(message, SubagentParentDetails(parent_session_id=parent_id))


class SubagentNotFound(EngineError[SubagentChildDetails]):
    """The child is not a subagent of that mode (or it is gone)."""

    code = "subagent-not-found"

    def __init__(self, parent_id: str, child_id: str, message: str) -> None:
        super().__init__(
            message, SubagentChildDetails(parent_session_id=parent_id, child_session_id=child_id)
        )


class SubagentCatalogDiagnostic(EngineError[SubagentDiagnosticDetails]):
    """The addressed child is a diagnostic row of `subagent.list` (its log cannot say what it is)."""

    code = "subagent-catalog-diagnostic"

    def __init__(self, parent_id: str, child_id: str, reason: str) -> None:
        details = SubagentDiagnosticDetails.model_validate(
            {"parent_session_id": parent_id, "child_session_id": child_id, "reason": reason}
        )
        super().__init__(f"the subagent {child_id} cannot be used ({reason})", details)


class SubagentNotResumable(EngineError[ChildSessionDetails]):
    code = "subagent-not-resumable"

    def __init__(self, child_id: str, message: str) -> None:
        super().__init__(message, ChildSessionDetails(child_session_id=child_id))


class SubagentUnauthorized(EngineError[ChildSessionDetails]):
    """The child belongs to another parent."""

    code = "subagent-unauthorized"

    def __init__(self, child_id: str) -> None:
        message = f"the subagent {child_id} belongs to another session"
        super().__init__(message, ChildSessionDetails(child_session_id=child_id))


class SubagentDeliveryUnavailable(EngineError[ChildSessionDetails]):
    """The child cannot take input now (closing, or its queue is full)."""

    code = "subagent-delivery-unavailable"

    def __init__(self, child_id: str, message: str) -> None:
        super().__init__(message, ChildSessionDetails(child_session_id=child_id))
