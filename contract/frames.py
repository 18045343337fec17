"""Stream frames: the payloads of server-requests on `events.mux` and `events.host`."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, SerializerFunctionWrapHandler, TypeAdapter, model_serializer

from contract._base import DEFERRED, WireModel
from contract.approvals import ApprovalRequested, ApprovalResolved
from contract.content import Message
from contract.errors import RpcError
from contract.events import SessionEvent
from contract.file_tree import FilesChanged
from contract.jobs import JobView
from contract.llm import DownloadCause, DownloadState
from contract.mcp import HostMcpChanged
from contract.questions import QuestionRequested, QuestionResolved
from contract.remotes import HostRemoteStatus, RemoteSecretRequested, RemoteSecretResolved
from contract.sessions import Attention
from contract.terminals import TerminalClosed, TerminalOutput
from contract.views import ToolEventView
from contract.workspaces import HostArchivedSessionsChanged, HostWorkspaceChanged, HostWorkspaceRemoved

ANSWERABLE_FRAMES = frozenset({"approval/requested", "question/requested", "remote/secret-requested"})
"""Their rpcId is stable (minted once, reused on replay); every other frame's is fresh."""


class SessionEventFrame(WireModel):
    type: Literal["session/event"] = "session/event"
    session_id: str
    event: SessionEvent
    view: ToolEventView | None = None
    """Only on `tool/call` / `tool/result` with a presenter (contract/views.py)."""


class SessionSubscribed(WireModel):
    type: Literal["session/subscribed"] = "session/subscribed"
    session_id: str
    last_seq: int = Field(ge=-1)


Placement = Literal["queued", "steering", "context"]
"""`queued`: next-turn input; `steering`: a person's next-step input; `context`: next-step input
the host injected (clients show it only once it is claimed)."""


class QueuedInboxItem(WireModel):
    """One pending inbox message; `id` is the message id `session.updateQueue` addresses."""

    id: str = Field(min_length=1)
    placement: Placement
    message: Message


class SessionQueue(WireModel):
    """The agent's pending input after every change to it, and once per session on open."""

    type: Literal["session/queue"] = "session/queue"
    session_id: str
    items: list[QueuedInboxItem]


class SessionJobs(WireModel):
    """Every background job of a session after each change (`[]` once the last one is gone)."""

    type: Literal["session/jobs"] = "session/jobs"
    session_id: str
    jobs: list[JobView]


class SessionProjection(WireModel):
    type: Literal["session/projection"] = "session/projection"
    session_id: str
    key: str
    value: Any = None
    """The projection's value; `null` (a cleared goal) is sent as `value: null`, never left out."""
    seq: int

    @model_serializer(mode="wrap")
    def _keep_value(self, handler: SerializerFunctionWrapHandler) -> Any:
        """`dump()` leaves out `None` fields; a projection's `null` is a value (the contract's
        `value: null`, which the reference's schemas require), so it is put back."""
        data = handler(self)
        if isinstance(data, dict):
            data.setdefault("value", None)
        return data


class StreamError(WireModel):
    type: Literal["stream/error"] = "stream/error"
    error: RpcError


class StreamOpened(WireModel):
    """`stream/opened`: the first frame of an `events.mux` stream, naming it for `host.focus`
    (docs/decisions/performance-under-load.md)."""

    type: Literal["stream/opened"] = "stream/opened"
    stream_id: str


MuxFrame = Annotated[
    Union[
        SessionEventFrame,
        SessionSubscribed,
        ApprovalRequested,
        ApprovalResolved,
        QuestionRequested,
        QuestionResolved,
        SessionQueue,
        SessionJobs,
        SessionProjection,
        HostRemoteStatus,
        TerminalOutput,
        TerminalClosed,
        FilesChanged,
        StreamError,
        StreamOpened,
    ],
    Field(discriminator="type"),
]
MUX_FRAME: TypeAdapter[Any] = TypeAdapter(MuxFrame, config=DEFERRED)


class HostSessionAdded(WireModel):
    type: Literal["host/session-added"] = "host/session-added"
    session_id: str
    blank: bool
    parent_session_id: str | None = None
    cwd: str | None = None
    agent_preset: str | None = None
    origin: Literal["subagent", "acp"] | None = None
    host_id: str | None = None
    """The remote host the session lives on (set by the local host's relay); absent: this one."""


class HostSessionRemoved(WireModel):
    type: Literal["host/session-removed"] = "host/session-removed"
    session_id: str


class HostSessionStatus(WireModel):
    type: Literal["host/session-status"] = "host/session-status"
    session_id: str
    running: bool


class HostSessionAttention(WireModel):
    """A session's attention state changed (docs/decisions.md, "Parallel sessions and attention")."""

    type: Literal["host/session-attention"] = "host/session-attention"
    session_id: str
    attention: Attention


class HostAgentError(WireModel):
    type: Literal["host/agent-error"] = "host/agent-error"
    session_id: str
    message: str


class HostSettingsChanged(WireModel):
    type: Literal["host/settings-changed"] = "host/settings-changed"
    ns: str


class HostCredentialsChanged(WireModel):
    type: Literal["host/credentials-changed"] = "host/credentials-changed"
    ref: str


class HostConfigFileChanged(WireModel):
    """settings.json or credentials.json became unusable, or usable again (fixed or reset)."""

    type: Literal["host/config-file-changed"] = "host/config-file-changed"
    file: Literal["settings.json", "credentials.json"]
    problem: str | None = None


class HostModelsChanged(WireModel):
    type: Literal["host/models-changed"] = "host/models-changed"


class HostModelStatus(WireModel):
    """The built-in model loads on the first local turn: `loading` until it can answer, then
    `ready` or `failed`. A subscriber that connects while it loads gets `loading` first."""

    type: Literal["host/model-status"] = "host/model-status"
    model: str
    state: Literal["loading", "ready", "failed"]


class HostModelDownload(WireModel):
    """A model download's progress (throttled) and every change of its state."""

    type: Literal["host/model-download"] = "host/model-download"
    download_id: str
    state: DownloadState
    received_bytes: int
    total_bytes: int | None = None
    error: str | None = None
    cause: DownloadCause | None = None
    name: str | None = None
    model_id: str | None = None


class HostCommandsChanged(WireModel):
    """A command was registered or unregistered: re-fetch `command.list`."""

    type: Literal["host/commands-changed"] = "host/commands-changed"


class HostSessionPresetChanged(WireModel):
    """A session now runs another preset (its `command.list` and `skill.list` changed too)."""

    type: Literal["host/session-preset-changed"] = "host/session-preset-changed"
    session_id: str
    agent_preset: str


HostFrame = Annotated[
    Union[
        HostSessionAdded,
        HostSessionRemoved,
        HostSessionStatus,
        HostSessionAttention,
        HostAgentError,
        HostSettingsChanged,
        HostCredentialsChanged,
        HostConfigFileChanged,
        HostModelsChanged,
        HostModelStatus,
        HostModelDownload,
        HostWorkspaceChanged,
        HostWorkspaceRemoved,
        HostArchivedSessionsChanged,
        HostCommandsChanged,
        HostSessionPresetChanged,
        HostMcpChanged,
        HostRemoteStatus,
        RemoteSecretRequested,
        RemoteSecretResolved,
        StreamError,
    ],
    Field(discriminator="type"),
]
HOST_FRAME: TypeAdapter[Any] = TypeAdapter(HostFrame, config=DEFERRED)

STREAMS: dict[str, TypeAdapter[Any]] = {"events.mux": MUX_FRAME, "events.host": HOST_FRAME}
"""Carrier-level streams, `GET /api/<key>`, and the frame schema each one carries."""
