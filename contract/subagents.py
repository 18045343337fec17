"""The `subagent.*` domain: a parent session's child sessions (docs/architecture.md, "Subagents").

A child is started by the parent agent's `task` tool; it is an ordinary session whose header says
`origin: "subagent"` and names its parent. People read it like any session, and message it only
through its parent: `subagent.prompt` queues input in the child, whose answer reaches the parent
as context; `session.prompt` and the other mutating methods answer `agent-busy` on it.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field

from contract._base import WireModel
from contract.events import SubagentMode
from contract.sessions import MAX_ATTACHMENTS, MAX_SEQ, AttachInput, PromptContent, SessionId

Activity = Literal["running", "inactive"]


class SubagentListRequest(WireModel):
    parent_session_id: SessionId


class OneShotChild(WireModel):
    kind: Literal["child"] = "child"
    id: str
    mode: Literal["one-shot"] = "one-shot"
    activity: Activity
    has_children: bool
    label: str | None = None


class ContinuableChild(WireModel):
    kind: Literal["child"] = "child"
    id: str
    mode: Literal["continuable"] = "continuable"
    activity: Activity
    has_children: bool
    label: str


DiagnosticReason = Literal["corrupt", "unsupported", "unavailable"]


class DiagnosticChild(WireModel):
    """A child whose log cannot say what it is (no readable `subagent/descriptor`)."""

    kind: Literal["diagnostic"] = "diagnostic"
    id: str
    reason: DiagnosticReason


SubagentListEntry = Annotated[
    Union[OneShotChild, ContinuableChild, DiagnosticChild], Field(union_mode="smart")
]


class SubagentListValue(WireModel):
    entries: list[SubagentListEntry]
    parent_available: bool = Field(description="the parent has a live agent in this host")


class SubagentHistoryRequest(WireModel):
    parent_session_id: SessionId
    child_session_id: SessionId
    mode: SubagentMode
    before_seq: int | None = Field(default=None, ge=0, le=MAX_SEQ)
    max_messages: int | None = Field(default=None, gt=0, le=10_000)


class SubagentPromptRequest(WireModel):
    """Takes what `session.prompt` takes: the content blocks (text, and images as base64 input),
    `clientTimeZone` and `attach` (read from the child's folder)."""

    parent_session_id: SessionId
    child_session_id: SessionId
    mode: Literal["continuable"]
    content: list[PromptContent] = Field(min_length=1)
    client_time_zone: str | None = None
    attach: list[AttachInput] = Field(default_factory=list, max_length=MAX_ATTACHMENTS)


class SubagentPromptValue(WireModel):
    message_id: str


class SubagentInterruptRequest(WireModel):
    parent_session_id: SessionId
    child_session_id: SessionId
    mode: Literal["continuable"]
