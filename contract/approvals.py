"""Approvals: the answerable request frame, its answer and its resolution.

The rules are in docs/architecture.md, "Approvals and questions".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from contract._base import WireModel
from contract.filechange import FileChange

MAX_NOTE = 4000


class AskedBy(WireModel):
    """On a request a subagent made: the child session that asks, and its label (the `task`
    description). The request's `sessionId` is the parent whose conversation shows it
    (docs/architecture.md, "Subagents")."""

    session_id: str
    label: str
    """The parent model's words, never a name the app vouches for: clients quote it after
    "Subagent:" (docs/decisions.md, "Subagent labels")."""


class AllowAlways(WireModel):
    """What "Allow always" would remember, in the host's words, so every client names the scope
    the same way before the click (docs/decisions.md, "Grants cannot widen")."""

    button: str
    """The button's text: "Allow always", or "Allow this exact command always"."""
    text: str
    """The scope: "Always allow `npm test …` in this session", "Always allow exactly this command"."""
    exact: bool
    """Only this very call would be remembered (a command that runs code, a compound one)."""


ApprovalOutcome = Literal["allowed-once", "allowed-always", "rejected", "cancelled", "unavailable"]


class ApprovalRequested(WireModel):
    type: Literal["approval/requested"] = "approval/requested"
    session_id: str
    approval_id: str
    tool_name: str
    call_id: str | None = None
    reason: str | None = None
    arguments: Any = None
    preview: FileChange | None = None
    """A file tool's change against the file as it is now (unified diff)."""
    subagent: AskedBy | None = None
    always: AllowAlways | None = None
    """What answering `allowed-always` would remember."""


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
    note: str | None = Field(default=None, max_length=MAX_NOTE)
    """With `rejected` only: what the agent is told in the tool result."""
