"""Typed RPC errors: one details shape per code, fixed by one map (docs/architecture.md, "Errors").

Adding a code is one line in `ERROR_DETAILS`; the `RpcError` union is derived from it. Host code
raises a `BusinessError` subclass (one per code, see `host/engine/errors/`); the ApiProxy turns
it into the typed error in one place (`host/api/registry.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Generic, Literal, TypeAlias, TypeVar, Union

from pydantic import Field, SerializerFunctionWrapHandler, TypeAdapter, create_model, model_serializer

from contract._base import DEFERRED, WireModel, to_wire
from contract.filechange import FileConflict


class NoDetails(WireModel):
    """`details` is required for every code; `{}` when there is nothing structured."""


GoalErrorCode = Literal[
    "GOAL_AGENT_NOT_LIVE",
    "GOAL_NOT_FOUND",
    "GOAL_ALREADY_EXISTS",
    "GOAL_STALE_REVISION",
    "GOAL_INVALID_OBJECTIVE",
    "GOAL_INVALID_MAX_ROUNDS",
    "GOAL_INVALID_BLOCK_REASON",
    "GOAL_INVALID_EDIT",
    "GOAL_INVALID_TRANSITION",
]


class InternalDetails(WireModel):
    """`internal` carries `{}`, or `{goalCode}` for a goal-domain rejection (docs/decisions.md,
    "Goals"): the reference's shape, kept so that its clients read ours."""

    goal_code: GoalErrorCode | None = None

    @model_serializer(mode="wrap")
    def _absent_when_none(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """`{}` however it is dumped: the key is absent, never `null`, outside goal rejections."""
        out: dict[str, Any] = handler(self)
        if self.goal_code is None:
            out.pop("goalCode", None)
            out.pop("goal_code", None)
        return out


class BadRequestDetails(WireModel):
    issues: list[dict[str, Any]]


class SessionDetails(WireModel):
    session_id: str


class AgentBusyDetails(WireModel):
    reason: str


class ModelUnavailableDetails(WireModel):
    provider: str
    model: str


class TimeZoneDetails(WireModel):
    value: str


class ItemDetails(WireModel):
    item_id: str


class ReasonDetails(WireModel):
    reason: str


class McpServerDetails(WireModel):
    name: str
    reason: str


class SessionConflictDetails(WireModel):
    session_id: str
    requested_cwd: str
    existing_cwd: str | None = None


class SessionExistsDetails(WireModel):
    """`session-exists`: the session an import would bring is already here."""

    session_id: str


class SettingsConflictDetails(WireModel):
    ns: str
    expected: int
    actual: int


class SettingsIssue(WireModel):
    """One reason a section was refused: where (`["profiles", "0", "baseURL"]`) and why; the UI
    names the place in words next to its field (never the rejected value)."""

    loc: list[str]
    msg: str


class NamespaceDetails(WireModel):
    ns: str


class SettingsRejectedDetails(WireModel):
    ns: str
    issues: list[SettingsIssue] = Field(default_factory=list)
    """For a section that does not validate: each reason, located (empty for other refusals)."""


class CredentialDetails(WireModel):
    ref: str


class PathDetails(WireModel):
    path: str


class WorkspaceDetails(WireModel):
    workspace_id: str


class NameDetails(WireModel):
    name: str


class WorkspaceMoveDetails(WireModel):
    workspace_id: str
    session_id: str
    before_session_id: str | None = None


class WorkspaceAttachDetails(WireModel):
    session_id: str
    workspace_id: str


class CapabilityDetails(WireModel):
    capability: str
    """The picker kind this host does serve (`native` or `browse`)."""


class PresetReasonDetails(WireModel):
    agent_preset: str
    reason: str


class PresetNotFoundDetails(WireModel):
    agent_preset: str
    available: list[str]


class PresetLockedDetails(WireModel):
    session_id: str
    agent_preset: str


class PresetConflictDetails(WireModel):
    session_id: str
    requested_preset: str
    existing_preset: str | None = None


class DiscoveryDetails(WireModel):
    settings_ns: str
    base_url: str | None = Field(default=None, alias="baseURL")
    """The request's draft URL, echoed; the draft key never is."""


class DownloadDetails(WireModel):
    download_id: str


class LocalModelDetails(WireModel):
    model_id: str


class JobDetails(WireModel):
    session_id: str
    job_id: str


class RewindUnavailableDetails(WireModel):
    session_id: str
    reason: str


class RevertUnavailableDetails(WireModel):
    session_id: str
    turn: int
    reason: str
    unrecorded: str | None = None
    """The turn's steps ran without snapshots (why, as their `snapshotError` says): what they
    changed is unknown, not nothing."""

    @model_serializer(mode="wrap")
    def _absent_when_none(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """`unrecorded` is there only when it says something (the other shapes stay as they were)."""
        out: dict[str, Any] = handler(self)
        if self.unrecorded is None:
            out.pop("unrecorded", None)
        return out


class RevertConflictDetails(WireModel):
    session_id: str
    conflicts: list[FileConflict]


class SubagentParentDetails(WireModel):
    parent_session_id: str


class SubagentChildDetails(WireModel):
    parent_session_id: str
    child_session_id: str


class SubagentDiagnosticDetails(WireModel):
    parent_session_id: str
    child_session_id: str
    reason: Literal["corrupt", "unsupported", "unavailable"]


class ChildSessionDetails(WireModel):
    child_session_id: str


class WorktreeConflictDetails(WireModel):
    session_id: str
    paths: list[str]
    """The files that cannot be brought over (the checkout changed them too), repository-relative."""


class WorktreeDirtyDetails(WireModel):
    session_id: str
    where: Literal["worktree", "local"]
    """Which side holds the uncommitted changes: the session's worktree or the person's checkout."""
    paths: list[str] = Field(default_factory=list)


class WorktreeUnmergedDetails(WireModel):
    session_id: str
    branch: str
    base: str
    commits: int


class RepositoryDetails(WireModel):
    path: str
    findings: list[str] = Field(default_factory=list)
    """`worktree-untrusted`: what in the repository's git configuration names programs."""


class StaleDiffDetails(WireModel):
    """`stale-diff`: the files whose hunks are not what the request named (nothing was written)."""

    session_id: str
    paths: list[str] = Field(default_factory=list)


class TerminalDetails(WireModel):
    terminal_id: str


class TooLargeDetails(WireModel):
    path: str
    size: int
    """The file's bytes (or, for a range, the range's text)."""
    limit: int


class PrivilegeDetails(WireModel):
    """`privilege-required`: the method that carried the change, and the change in words."""

    method: str
    change: str


class RemoteHostDetails(WireModel):
    host_id: str


class RemoteUnavailableDetails(WireModel):
    """`remote-unavailable`: the host is not connected now (`state`: what it is instead)."""

    host_id: str
    state: str


class RemoteConnectDetails(WireModel):
    """`remote-connect-failed`: the step that failed: `ssh` (reaching or logging in), `bootstrap`
    (no usable Python, another architecture, an install that failed) or `server`."""

    host_id: str
    stage: Literal["ssh", "bootstrap", "server"]


class HostKeyDetails(WireModel):
    """`host-key-unknown` / `host-key-changed`: the key the host presents now."""

    host_id: str
    fingerprint: str = Field(description="`SHA256:…`, as `ssh-keygen -l` prints it")
    key_type: str = Field(description="`ED25519`, `ECDSA`, `RSA` …")


# commit, log, push, pull request (docs/decisions/commit-and-push.md)
class GitOutputDetails(WireModel):
    """`push-rejected`, `no-remote`, `auth-failed`, `git-failed`: what git (or `gh`) printed,
    for the disclosure under the one-sentence message."""

    output: str = ""


ERROR_DETAILS: dict[str, type[WireModel]] = {
    "bad-request": BadRequestDetails,
    "internal": InternalDetails,
    "cancelled": NoDetails,
    "session-not-found": SessionDetails,
    "agent-busy": AgentBusyDetails,
    "model-unavailable": ModelUnavailableDetails,
    "invalid-time-zone": TimeZoneDetails,
    "title-invalid": SessionDetails,
    "fork-unavailable": SessionDetails,
    "queue-item-not-found": ItemDetails,
    "steer-unavailable": ItemDetails,
    "attachment-error": ReasonDetails,
    "session-conflict": SessionConflictDetails,
    "session-exists": SessionExistsDetails,
    "settings-conflict": SettingsConflictDetails,
    "settings-not-exposed": NamespaceDetails,
    "settings-rejected": SettingsRejectedDetails,
    "credential-rejected": CredentialDetails,
    "storage-error": ReasonDetails,
    "workspace-invalid-path": PathDetails,
    "workspace-not-found": WorkspaceDetails,
    "workspace-name-conflict": NameDetails,
    "workspace-move-invalid": WorkspaceMoveDetails,
    "workspace-attach-failed": WorkspaceAttachDetails,
    "directory-picker-unavailable": CapabilityDetails,
    "directory-unreadable": PathDetails,
    "directory-exists": PathDetails,
    "directory-create-failed": PathDetails,
    "agent-preset-not-found": PresetNotFoundDetails,
    "agent-preset-invalid": PresetReasonDetails,
    "agent-preset-read-only": PresetReasonDetails,
    "agent-preset-locked": PresetLockedDetails,
    "agent-preset-conflict": PresetConflictDetails,
    "model-discovery-failed": DiscoveryDetails,
    "model-download-not-found": DownloadDetails,
    "model-download-refused": ReasonDetails,
    "local-model-not-found": LocalModelDetails,
    "job-not-found": JobDetails,
    "revert-unavailable": RevertUnavailableDetails,
    "rewind-unavailable": RewindUnavailableDetails,
    "revert-conflict": RevertConflictDetails,
    "subagent-parent-unavailable": SubagentParentDetails,
    "subagent-not-found": SubagentChildDetails,
    "subagent-catalog-diagnostic": SubagentDiagnosticDetails,
    "subagent-not-resumable": ChildSessionDetails,
    "subagent-unauthorized": ChildSessionDetails,
    "subagent-delivery-unavailable": ChildSessionDetails,
    "mcp-server-not-found": McpServerDetails,
    "mcp-server-changed": McpServerDetails,
    "command-error": NoDetails,
    "unknown-command": NoDetails,
    "privilege-required": PrivilegeDetails,
    "archive-invalid": ReasonDetails,
    "worktree-conflict": WorktreeConflictDetails,
    "worktree-dirty": WorktreeDirtyDetails,
    "worktree-unmerged": WorktreeUnmergedDetails,
    "not-a-repository": RepositoryDetails,
    "worktree-untrusted": RepositoryDetails,
    "worktree-failed": ReasonDetails,
    "remote-host-not-found": RemoteHostDetails,
    "remote-unavailable": RemoteUnavailableDetails,
    "remote-connect-failed": RemoteConnectDetails,
    "host-key-unknown": HostKeyDetails,
    "host-key-changed": HostKeyDetails,
    "terminal-not-found": TerminalDetails,
    "outside-folder": PathDetails,
    "not-a-file": PathDetails,
    "too-large": TooLargeDetails,
    # the review pane (docs/decisions/review-pane.md)
    "stale-diff": StaleDiffDetails,
    "repository-untrusted": RepositoryDetails,
    # commit, log, push, pull request
    "nothing-staged": SessionDetails,
    "git-identity-missing": NoDetails,
    "push-rejected": GitOutputDetails,
    "no-remote": GitOutputDetails,
    "auth-failed": GitOutputDetails,
    "git-failed": GitOutputDetails,
}
"""`bad-request` and `cancelled` come from the carrier, `internal` from the carrier or from one host
exception (an action on this machine that failed: opening a file in an editor or a folder in the file
manager, a folder it cannot create); every other code is a business error the host raises. A request
the loopback fence refuses is an HTTP 403, not an RpcError."""

ErrorCode = Literal[tuple(ERROR_DETAILS)]  # type: ignore[valid-type]


class RpcErrorBase(WireModel):
    """The static face of every error model; each code's model narrows `code` and `details`."""

    code: str
    message: str
    details: Any


def _error_model(code: str, details: type[WireModel]) -> type[RpcErrorBase]:
    name = "".join(part.capitalize() for part in code.split("-")) + "Error"
    code_type: Any = Literal[code]
    return create_model(
        name,
        __base__=RpcErrorBase,
        code=(code_type, ...),
        message=(str, ...),
        details=(details, ...),
    )


ERROR_MODELS: dict[str, type[RpcErrorBase]] = {c: _error_model(c, d) for c, d in ERROR_DETAILS.items()}

if TYPE_CHECKING:
    RpcError: TypeAlias = RpcErrorBase
else:
    RpcError = Annotated[Union[tuple(ERROR_MODELS.values())], Field(discriminator="code")]
RPC_ERROR: TypeAdapter[Any] = TypeAdapter(RpcError, config=DEFERRED)


def rpc_error(code: str, message: str, **details: Any) -> RpcErrorBase:
    """Build a typed error; the details are validated against the code's shape."""
    model = ERROR_MODELS[code]
    return model(code=code, message=message, details=ERROR_DETAILS[code].model_validate(details))


def bad_request(message: str, issues: list[dict[str, Any]] | None = None) -> RpcErrorBase:
    """A `bad-request` error carrying JSON-safe validation issues."""
    return rpc_error("bad-request", message, issues=issues or [])


def issues_of(exc: Exception) -> list[dict[str, Any]]:
    """JSON-safe validation issues from a pydantic ValidationError (no input echo)."""
    errors = getattr(exc, "errors", None)
    if errors is None:
        return [{"msg": str(exc)}]
    out = []
    for e in errors(include_url=False, include_input=False, include_context=False):
        out.append({"loc": [str(p) for p in e.get("loc", ())], "msg": e.get("msg"), "type": e.get("type")})
    return out


D = TypeVar("D", bound=WireModel)


class BusinessError(Exception, Generic[D]):
    """A failure the caller is told about as a typed RpcError (never a 500).

    Each concrete subclass fixes `code` (a key of `ERROR_DETAILS`) and builds that code's
    details model; the message is one line for the user and never carries a secret.
    """

    code: ClassVar[str]

    def __init__(self, message: str, details: D) -> None:
        super().__init__(message)
        expected = ERROR_DETAILS[self.code]
        if type(details) is not expected:
            raise TypeError(f"{self.code} carries {expected.__name__}, not {type(details).__name__}")
        self.error_details: D = details

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        code = cls.__dict__.get("code")
        if code is not None and code not in ERROR_DETAILS:
            raise TypeError(f"{cls.__name__}.code {code!r} is not an error code of the contract")

    def details(self) -> dict[str, Any]:
        """The details as wire JSON (camelCase)."""
        out: dict[str, Any] = to_wire(self.error_details)
        return out

    def rpc_error(self) -> RpcErrorBase:
        """The typed RpcError this failure answers with."""
        return ERROR_MODELS[self.code](code=self.code, message=str(self), details=self.error_details)
