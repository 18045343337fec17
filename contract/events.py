"""The durable session event vocabulary (docs/architecture.md, "Session events").

The envelope `{type, seq, time, data}` is strict. `data` of a known type is checked against
its model in `EVENT_DATA` (extra keys pass through); an unknown type passes through unchecked.
"""

from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import (
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    model_serializer,
    model_validator,
)

from contract._base import OpenModel, WireModel
from contract.approvals import ApprovalOutcome, ApprovalWhy
from contract.commands import CommandDone, CommandRun, PlanMode
from contract.content import ContentBlock, Message, StreamChunk, Usage
from contract.filechange import FileChange, FilesRestored
from contract.goals import GoalChange
from contract.presets import AgentPresetSelected
from contract.vetoes import HookInvoked, HookResult, PromptBlocked

TurnTrigger = Literal["user", "steer", "injection", "queue"]
AbortedBy = Literal["user", "parent", "disposed"]
TurnEndKind = Literal["completed", "aborted", "error", "max-tokens", "interrupted", "blocked"]


class TurnStart(OpenModel):
    turn: int = Field(ge=0)
    trigger: TurnTrigger


class TurnEndReason(OpenModel):
    """`completed`, `aborted {by}`, `error {error}`, `max-tokens`, `interrupted` (crash repair),
    `blocked` (a prompt gate vetoed the prompt, or a goal round went stale: zero steps)."""

    kind: TurnEndKind
    by: AbortedBy | None = None
    error: Any = None


class TurnEnd(OpenModel):
    turn: int = Field(ge=0)
    reason: TurnEndReason


class StepMark(OpenModel):
    turn: int = Field(ge=0)
    step: int = Field(ge=0)


class RequestHeader(OpenModel):
    provider: str
    model: str
    reasoning_effort: str | None = None
    system: str | None = None
    tools: list[str] | None = None


class AssistantChunk(OpenModel):
    turn: int = Field(ge=0)
    step: int = Field(ge=0)
    chunk: StreamChunk


class AssistantMessage(OpenModel):
    turn: int = Field(ge=0)
    step: int = Field(ge=0)
    message: Message
    usage: Usage | None = None
    interrupted: bool | None = None


class ToolCall(OpenModel):
    turn: int = Field(ge=0)
    step: int = Field(ge=0)
    call_id: str
    name: str
    arguments: str


class ToolError(OpenModel):
    name: str
    code: str


class ToolResult(OpenModel):
    turn: int = Field(ge=0)
    step: int = Field(ge=0)
    message: Message
    error: ToolError | None = None
    change: FileChange | None = None
    """The file the tool wrote (never sent to the model): the diff and the checkpoint's hashes."""
    changes: list[FileChange] | None = None
    """What any other step changed in the folder (a shell command…), found by the snapshots
    around it (never sent to the model)."""
    snapshot_error: str | None = None
    """Why the snapshots around this step could not be taken (git failed, the disk is full, the
    folder is too large, a lock): what it changed in the folder was not recorded and a revert
    cannot put it back (never sent to the model)."""


class TodoItem(WireModel):
    content: str = Field(min_length=1)
    status: Literal["pending", "in_progress", "completed"]


class TodoWrite(OpenModel):
    todos: list[TodoItem]


class ApprovalAsked(OpenModel):
    id: str
    tool_name: str
    call_id: str | None = None
    reason: str | None = None
    preview: FileChange | None = None
    """What a file tool would write (the diff against the file as it was when asked)."""
    why: ApprovalWhy | None = None
    """`reason` as parts, for a client's own language (docs/decisions.md, "Languages")."""


class ApprovalDecided(OpenModel):
    id: str
    outcome: ApprovalOutcome
    note: str | None = None
    """A rejection's note from the person (the agent reads it in the tool result)."""


class TitleSource(OpenModel):
    kind: Literal["user", "auto"]


class SessionTitle(OpenModel):
    title: str
    source: TitleSource


class EndSeed(OpenModel):
    pass


class RetryNotice(OpenModel):
    """`request/retry`: the adapter retried after a 429/5xx/reset (recorded, not hidden)."""

    attempt: int = Field(ge=1)
    delay_ms: int = Field(ge=0)
    reason: str


class PermissionPresetSet(OpenModel):
    """`permission/preset`: the preset a session was created with (or switched to)."""

    preset: str


class SandboxModeSet(OpenModel):
    """`sandbox/mode`: what the session's commands really run under."""

    mode: str
    mechanism: str | None = None
    """`bwrap`, `landlock`, or `none` (no sandbox here: Auto runs as Ask, Read-only runs no command)."""
    network: bool | None = None
    """The session's "Allow network" switch."""


class ApprovalPolicySet(OpenModel):
    policy: str


# ---- compaction (docs/architecture.md, "Compaction") -------------------------------------------


class _KeepsTurn(OpenModel):
    """`turn` is `int | null` on the wire: a manual bracket writes `null`, never leaves it out."""

    @model_serializer(mode="wrap")
    def _with_turn(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        out.setdefault("turn", None)
        return out


class CompactStart(_KeepsTurn):
    """Opens a compaction bracket (automatic: the open turn's number; manual: `null`)."""

    compaction_id: str = Field(min_length=1)
    source_command_id: str | None = None
    turn: int | None = Field(ge=0)


class ShadowedRange(WireModel):
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class CompactSummary(OpenModel):
    """The summary that replaces the shadowed surface; the replacing `user/message` follows."""

    compaction_id: str = Field(min_length=1)
    source_command_id: str | None = None
    summary: list[ContentBlock]
    shadowed_range: ShadowedRange
    shadowed_seqs: list[int]
    shadowed_token_count: int = Field(ge=0)
    provider: str
    model: str
    max_tokens: int | None = Field(default=None, gt=0)
    usage: Usage | None = None
    raw_output: list[ContentBlock] | None = None
    llm_stream_call: Literal[True] | None = None


class CompactEnd(_KeepsTurn):
    """Closes the bracket; `error` says why nothing changed. `interrupted` (with an `error`):
    written by crash repair for a compaction the host died running."""

    compaction_id: str = Field(min_length=1)
    source_command_id: str | None = None
    turn: int | None = Field(ge=0)
    error: str | None = None
    interrupted: Literal[True] | None = None


# ---- the durable inbox (docs/architecture.md, "Agents") ---------------------------------------

InboxTarget = Literal["next-turn", "next-step"]


class InboxSpliced(OpenModel):
    """One change to one of the agent's two pending lists; replaying them rebuilds both."""

    target: InboxTarget
    start: int = Field(ge=0)
    removed_count: int | None = Field(default=None, gt=0)
    inserted: list[Message] = Field(default_factory=list)
    outcome: Literal["canceled"] | None = None


# ---- subagents (docs/architecture.md, "Subagents") ---------------------------------------------

SubagentMode = Literal["one-shot", "continuable"]


class ToolFilter(WireModel):
    allow: list[str] | None = None
    deny: list[str] | None = None


class SubagentDescriptor(OpenModel):
    """`subagent/descriptor`: what a child session is, logged once in its first turn (log-only).
    `one-shot` children answer once; `continuable` ones (all `task` children) can be messaged
    again through their parent (`subagent.prompt`). `label` is required for `continuable`."""

    version: Literal[2]
    mode: SubagentMode
    provider: str = Field(min_length=1, description="what runs the child: `inprocess` here")
    label: str | None = None
    agent_provider: str | None = None
    agent_model: str | None = None
    persona: str | None = Field(default=None, description="the agent preset the child runs")
    tool_filter: ToolFilter | None = None

    @model_validator(mode="after")
    def _labelled(self) -> SubagentDescriptor:
        if self.mode == "continuable" and not self.label:
            raise ValueError("a continuable subagent needs a label")
        return self


class SubagentSpawned(OpenModel):
    """`subagent/spawned`: in the parent's log, the `task` call `callId` started the child
    `sessionId` (log-only; the web UI links the tool card to the child's conversation)."""

    call_id: str
    session_id: str
    label: str
    agent_preset: str | None = None


class JobLost(OpenModel):
    """`job/lost`: a background job of this session was running when the host crashed; the next
    start records it (log-only; docs/architecture.md, "Background jobs")."""

    job_id: str = Field(min_length=1)
    label: str
    started_at: int = Field(ge=0)
    detail: str


EVENT_DATA: dict[str, type[OpenModel]] = {
    "turn/start": TurnStart,
    "turn/end": TurnEnd,
    "step/start": StepMark,
    "step/end": StepMark,
    "request/header": RequestHeader,
    "request/retry": RetryNotice,
    "user/message": Message,  # type: ignore[dict-item]
    "steering/message": Message,  # type: ignore[dict-item]
    "assistant/chunk": AssistantChunk,
    "assistant/message": AssistantMessage,
    "tool/call": ToolCall,
    "tool/result": ToolResult,
    "todo/write": TodoWrite,
    "approval/asked": ApprovalAsked,
    "approval/decided": ApprovalDecided,
    "session/title": SessionTitle,
    "session/end-seed": EndSeed,
    "agent-preset/selected": AgentPresetSelected,
    "command/run": CommandRun,
    "command/done": CommandDone,
    "plan/mode": PlanMode,
    "permission/preset": PermissionPresetSet,
    "sandbox/mode": SandboxModeSet,
    "approval/policy": ApprovalPolicySet,
    "compact/start": CompactStart,
    "compact/summary": CompactSummary,
    "compact/end": CompactEnd,
    "agent/inbox/spliced": InboxSpliced,
    "files/restored": FilesRestored,
    "subagent/descriptor": SubagentDescriptor,
    "subagent/spawned": SubagentSpawned,
    "prompt/blocked": PromptBlocked,
    "hook/invoked": HookInvoked,
    "hook/result": HookResult,
    "goal/change": GoalChange,  # type: ignore[dict-item]
    "job/lost": JobLost,
}

STORED = "stored"
"""Validation context key: `{STORED: True}` marks an event read back from the host's own store,
whose data was checked against its model when it was written (the envelope is still checked)."""

SURFACE_TYPES = frozenset({"user/message", "steering/message", "assistant/message", "tool/result"})
"""Events that make up the visible conversation (they may carry surfaceOp)."""


class ReplaceOp(WireModel):
    op: Literal["replace"]
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class SessionEvent(WireModel):
    """One persisted event. `seq` is contiguous from 0 within a session."""

    type: str = Field(min_length=1)
    seq: int = Field(ge=0)
    time: int = Field(ge=0)
    data: dict[str, Any]
    surface_op: Union[Literal["append"], ReplaceOp, None] = None
    source_event_seqs: list[int] | None = None

    @model_validator(mode="after")
    def _check_known_data(self, info: ValidationInfo) -> SessionEvent:
        if info.context is not None and info.context.get(STORED):
            return self  # read back from the store, which checked it on the way in
        model = EVENT_DATA.get(self.type)
        if model is not None:
            model.model_validate(self.data)
        return self

    def typed_data(self) -> Any:
        """The data as its model when the type is known, else the raw dict."""
        model = EVENT_DATA.get(self.type)
        return model.model_validate(self.data) if model else self.data
