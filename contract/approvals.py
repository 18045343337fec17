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


ScopeKind = Literal["command", "exact-command", "folder", "project", "exact-arguments", "legacy", "any"]


class ScopeWords(WireModel):
    """A rule's scope as parts a client words in its own language (docs/decisions.md,
    "Languages"): the host's English sentence beside it stays for clients that do not."""

    kind: ScopeKind
    """`command`: a command of this shape; `exact-command`: this very command; `folder`: any path
    in a folder; `project`: every call in a project; `exact-arguments`; `legacy`: an earlier
    version's rule, no longer used; `any`: every call."""
    subject: str = ""
    """The command's words (`npm test`), the exact command, the folder, the project or the
    arguments; empty where the kind says it all."""


class AllowAlways(WireModel):
    """What "Allow always" would remember, in the host's words, so every client names the scope
    the same way before the click (docs/decisions.md, "Grants cannot widen")."""

    button: str
    """The button's text: "Allow always", or "Allow this exact command always"."""
    text: str
    """The scope: "Always allow `npm test …` in this session", "Always allow exactly this command"."""
    exact: bool
    """Only this very call would be remembered (a command that runs code, a compound one)."""
    words: ScopeWords | None = None
    """The same as parts, for a client's own language (`button` and `text` follow from it)."""


class ApprovalWhy(WireModel):
    """Why a call asks, as parts a client words in its own language (docs/decisions.md,
    "Languages"); the request's `reason` says the same in the host's English."""

    hook: str | None = None
    """A PreToolUse hook's reason for asking (the hook's own words)."""
    mcp_server: str | None = None
    """An MCP tool's server (its tool is `mcp_tool`)."""
    mcp_tool: str | None = None
    mcp_read_only: bool = False
    """The server says the tool only reads (its claim)."""
    leaving: Literal["outside-sandbox", "network"] | None = None
    """What the call lets out of the sandbox (a bash command asks every time)."""
    rule: ScopeWords | None = None
    """With `leaving`: what "Allow always" would still allow, inside the sandbox only."""


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
    why: ApprovalWhy | None = None
    """`reason` as parts, for a client's own language."""


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
