"""The engine's business failures: one exception per RpcError code, each carrying its details.

Raise them anywhere in the engine; `host/api/registry.py` answers them as typed RpcErrors in one
place, and the CLI prints their message. A new code is a line in `contract.errors.ERROR_DETAILS`
plus a class here (`tests/api/test_registry.py` checks that every business code has exactly one).
"""

from __future__ import annotations

from contract.errors import (
    AgentBusyDetails,
    BusinessError,
    CapabilityDetails,
    ChildSessionDetails,
    CredentialDetails,
    D,
    DiscoveryDetails,
    DownloadDetails,
    InternalDetails,
    ItemDetails,
    JobDetails,
    LocalModelDetails,
    McpServerDetails,
    ModelUnavailableDetails,
    NameDetails,
    NamespaceDetails,
    PathDetails,
    PresetConflictDetails,
    PresetLockedDetails,
    PresetNotFoundDetails,
    PresetReasonDetails,
    PrivilegeDetails,
    ReasonDetails,
    RevertConflictDetails,
    RevertUnavailableDetails,
    SessionConflictDetails,
    SessionDetails,
    SettingsConflictDetails,
    SettingsIssue,
    SettingsRejectedDetails,
    SubagentChildDetails,
    SubagentDiagnosticDetails,
    SubagentParentDetails,
    TimeZoneDetails,
    WorkspaceAttachDetails,
    WorkspaceDetails,
    WorkspaceMoveDetails,
)
from contract.filechange import FileConflict


class EngineError(BusinessError[D]):
    """Base of the engine's business failures (the CLI catches this one)."""


class SessionNotFound(EngineError[SessionDetails]):
    code = "session-not-found"

    def __init__(self, session_id: str) -> None:
        super().__init__(f"no session {session_id}", SessionDetails(session_id=session_id))


class ForkUnavailable(EngineError[SessionDetails]):
    code = "fork-unavailable"

    def __init__(self, session_id: str, message: str) -> None:
        super().__init__(message, SessionDetails(session_id=session_id))


class TitleInvalid(EngineError[SessionDetails]):
    code = "title-invalid"

    def __init__(self, session_id: str, message: str) -> None:
        super().__init__(message, SessionDetails(session_id=session_id))


class QueueItemNotFound(EngineError[ItemDetails]):
    code = "queue-item-not-found"

    def __init__(self, item_id: str, message: str) -> None:
        super().__init__(message, ItemDetails(item_id=item_id))


class SteerUnavailable(EngineError[ItemDetails]):
    code = "steer-unavailable"

    def __init__(self, item_id: str, message: str) -> None:
        super().__init__(message, ItemDetails(item_id=item_id))


class AttachmentError(EngineError[ReasonDetails]):
    code = "attachment-error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason, ReasonDetails(reason=reason))


class AgentBusy(EngineError[AgentBusyDetails]):
    code = "agent-busy"

    def __init__(self, reason: str) -> None:
        super().__init__(reason, AgentBusyDetails(reason=reason))


class ModelUnavailable(EngineError[ModelUnavailableDetails]):
    code = "model-unavailable"

    def __init__(self, provider: str, model: str, message: str | None = None) -> None:
        details = ModelUnavailableDetails(provider=provider, model=model)
        super().__init__(message or f"no adapter serves {provider}/{model}", details)


class InvalidTimeZone(EngineError[TimeZoneDetails]):
    code = "invalid-time-zone"

    def __init__(self, value: str) -> None:
        super().__init__(f"not a time zone: {value!r}", TimeZoneDetails(value=value))


class SessionConflict(EngineError[SessionConflictDetails]):
    code = "session-conflict"

    def __init__(
        self, session_id: str, requested_cwd: str, existing_cwd: str | None, message: str | None = None
    ) -> None:
        details = SessionConflictDetails(
            session_id=session_id, requested_cwd=requested_cwd, existing_cwd=existing_cwd
        )
        super().__init__(message or f"session {session_id} exists with another cwd", details)


class SettingsNotExposed(EngineError[NamespaceDetails]):
    """A write to a namespace outside the exposed set (an unregistered one gets the same answer,
    so nobody can probe which namespaces exist)."""

    code = "settings-not-exposed"

    def __init__(self, ns: str) -> None:
        super().__init__(f"settings namespace {ns!r} is not exposed", NamespaceDetails(ns=ns))


class SettingsRejected(EngineError[SettingsRejectedDetails]):
    """A settings write refused: bad name, invalid section, read-only or failed storage."""

    code = "settings-rejected"

    def __init__(self, ns: str, message: str, issues: list[tuple[list[str], str]] | None = None) -> None:
        located = [SettingsIssue(loc=loc, msg=msg) for loc, msg in issues or []]
        super().__init__(message, SettingsRejectedDetails(ns=ns, issues=located))


class SettingsConflict(EngineError[SettingsConflictDetails]):
    """`expectedRevision` is stale: nothing was written."""

    code = "settings-conflict"

    def __init__(self, ns: str, expected: int, actual: int) -> None:
        details = SettingsConflictDetails(ns=ns, expected=expected, actual=actual)
        super().__init__(f"{ns} is at revision {actual}, not {expected}: reload and try again", details)


class CredentialRejected(EngineError[CredentialDetails]):
    """A credential set/unset refused (the environment shadows it, or storage failed); the
    message never names the secret."""

    code = "credential-rejected"

    def __init__(self, ref: str, message: str) -> None:
        super().__init__(message, CredentialDetails(ref=ref))


# ---- workspaces and host folders ----------------------------------------------------------------


class WorkspaceInvalidPath(EngineError[PathDetails]):
    code = "workspace-invalid-path"

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message, PathDetails(path=path))


class WorkspaceNotFound(EngineError[WorkspaceDetails]):
    code = "workspace-not-found"

    def __init__(self, workspace_id: str) -> None:
        super().__init__(f"no workspace {workspace_id}", WorkspaceDetails(workspace_id=workspace_id))


class WorkspaceNameConflict(EngineError[NameDetails]):
    code = "workspace-name-conflict"

    def __init__(self, name: str) -> None:
        super().__init__(f"another workspace is already called {name!r}", NameDetails(name=name))


class WorkspaceMoveInvalid(EngineError[WorkspaceMoveDetails]):
    code = "workspace-move-invalid"

    def __init__(self, workspace_id: str, session_id: str, before_session_id: str | None) -> None:
        details = WorkspaceMoveDetails(
            workspace_id=workspace_id, session_id=session_id, before_session_id=before_session_id
        )
        super().__init__("the session or the anchor is not in this workspace", details)


class WorkspaceAttachFailed(EngineError[WorkspaceAttachDetails]):
    code = "workspace-attach-failed"

    def __init__(self, session_id: str, workspace_id: str, why: str) -> None:
        details = WorkspaceAttachDetails(session_id=session_id, workspace_id=workspace_id)
        super().__init__(f"session {session_id} was created but not added to the workspace: {why}", details)


class DirectoryPickerUnavailable(EngineError[CapabilityDetails]):
    code = "directory-picker-unavailable"

    def __init__(self, capability: str, wanted: str) -> None:
        message = f"this host serves the {capability} folder picker, not {wanted}"
        super().__init__(message, CapabilityDetails(capability=capability))


class DirectoryUnreadable(EngineError[PathDetails]):
    code = "directory-unreadable"

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message, PathDetails(path=path))


class DirectoryExists(EngineError[PathDetails]):
    code = "directory-exists"

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message, PathDetails(path=path))


class DirectoryCreateFailed(EngineError[PathDetails]):
    code = "directory-create-failed"

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message, PathDetails(path=path))


class HostActionFailed(EngineError[InternalDetails]):
    """Something the host does for the user on this machine failed (the OS opener, creating a
    session's folder, opening settings.json in an editor): `internal {}` with a one-line message.
    The one business use of `internal`; a host bug is still a 500 (docs/decisions.md
    "Workspaces")."""

    code = "internal"

    def __init__(self, message: str) -> None:
        super().__init__(message, InternalDetails())


class AgentPresetNotFound(EngineError[PresetNotFoundDetails]):
    code = "agent-preset-not-found"

    def __init__(self, agent_preset: str, available: list[str]) -> None:
        details = PresetNotFoundDetails(agent_preset=agent_preset, available=available)
        super().__init__(
            f"no agent preset {agent_preset!r} (available: {', '.join(available) or 'none'})", details
        )


class AgentPresetInvalid(EngineError[PresetReasonDetails]):
    """A new id that is malformed or taken; a preset that is broken."""

    code = "agent-preset-invalid"

    def __init__(self, agent_preset: str, reason: str) -> None:
        super().__init__(reason, PresetReasonDetails(agent_preset=agent_preset, reason=reason))


class AgentPresetReadOnly(EngineError[PresetReasonDetails]):
    """A shipped preset (or no user root) where a change was asked for."""

    code = "agent-preset-read-only"

    def __init__(self, agent_preset: str, reason: str) -> None:
        super().__init__(reason, PresetReasonDetails(agent_preset=agent_preset, reason=reason))


class AgentPresetLocked(EngineError[PresetLockedDetails]):
    """`select` on a session that has run a turn; `agentPreset` is the preset it runs."""

    code = "agent-preset-locked"

    def __init__(self, session_id: str, agent_preset: str) -> None:
        message = f"the session already ran a turn with preset {agent_preset!r}; start a new session"
        super().__init__(message, PresetLockedDetails(session_id=session_id, agent_preset=agent_preset))


class AgentPresetConflict(EngineError[PresetConflictDetails]):
    code = "agent-preset-conflict"

    def __init__(self, session_id: str, requested: str, existing: str | None) -> None:
        details = PresetConflictDetails(
            session_id=session_id, requested_preset=requested, existing_preset=existing
        )
        super().__init__(
            f"session {session_id} exists with preset {existing or '(none)'}, not {requested}", details
        )


class ModelDiscoveryFailed(EngineError[DiscoveryDetails]):
    """Every `llm.discoverModels` failure; the message is the adapter's own, never the key."""

    code = "model-discovery-failed"

    def __init__(self, settings_ns: str, base_url: str | None, message: str) -> None:
        super().__init__(message, DiscoveryDetails(settings_ns=settings_ns, base_url=base_url))


class ModelDownloadNotFound(EngineError[DownloadDetails]):
    """No download of that id (it finished and was dismissed, or never existed)."""

    code = "model-download-not-found"

    def __init__(self, download_id: str) -> None:
        super().__init__(f"no model download {download_id!r}", DownloadDetails(download_id=download_id))


class ModelDownloadRefused(EngineError[ReasonDetails]):
    """A download that cannot start: not enough free space, a bad source, already running."""

    code = "model-download-refused"

    def __init__(self, reason: str) -> None:
        super().__init__(reason, ReasonDetails(reason=reason))


class LocalModelNotFound(EngineError[LocalModelDetails]):
    code = "local-model-not-found"

    def __init__(self, model_id: str) -> None:
        super().__init__(f"no installed model {model_id!r}", LocalModelDetails(model_id=model_id))


class JobNotFound(EngineError[JobDetails]):
    """No background job of that id in that session (it never existed, or the host restarted)."""

    code = "job-not-found"

    def __init__(self, session_id: str, job_id: str) -> None:
        super().__init__(f"no job {job_id} in this session", JobDetails(session_id=session_id, job_id=job_id))


class RevertUnavailable(EngineError[RevertUnavailableDetails]):
    """Nothing to revert: the turn changed no file, is already reverted, or is still running."""

    code = "revert-unavailable"

    def __init__(self, session_id: str, turn: int, reason: str) -> None:
        details = RevertUnavailableDetails(session_id=session_id, turn=turn, reason=reason)
        super().__init__(f"Nothing to revert: {reason}.", details)


_CONFLICT_TEXT = {
    "changed": "was changed outside HarnessDesk since",
    "later-turn": "was changed again by a later turn (revert that turn first)",
    "not-saved": "has no saved earlier content to go back to",
    "stale": "is not what the Changes view showed (it changed since; look again)",
}


class RevertConflict(EngineError[RevertConflictDetails]):
    """Files that cannot be put back; nothing was changed (docs/decisions.md, "UX pass")."""

    code = "revert-conflict"

    def __init__(self, session_id: str, conflicts: list[FileConflict]) -> None:
        text = "; ".join(f"{c.path} {_CONFLICT_TEXT[c.reason]}" for c in conflicts[:5])
        more = f" (and {len(conflicts) - 5} more)" if len(conflicts) > 5 else ""
        details = RevertConflictDetails(session_id=session_id, conflicts=conflicts)
        super().__init__(f"Nothing was restored: {text}{more}.", details)


# ---- subagents (docs/architecture.md, "Subagents") ---------------------------------------------


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


class PrivilegeRequired(EngineError[PrivilegeDetails]):
    """A change that lets more run without asking, from a caller refused privileged methods (a
    `--trusted-host` browser): nothing changed (docs/decisions.md, "Loosening is privileged")."""

    code = "privilege-required"

    def __init__(self, method: str, change: str) -> None:
        message = f"{change}: only the app's window or a browser on this machine may do that"
        super().__init__(message, PrivilegeDetails(method=method, change=change))


class McpServerNotFound(EngineError[McpServerDetails]):
    """No MCP server of that name for the session's (or workspace's) project, or not one that
    the call applies to (`mcp.approve` of a user server)."""

    code = "mcp-server-not-found"

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"MCP server {name!r}: {reason}", McpServerDetails(name=name, reason=reason))


class McpServerChanged(EngineError[McpServerDetails]):
    """`mcp.approve` named a digest the entry no longer has: the person saw another command."""

    code = "mcp-server-changed"

    def __init__(self, name: str) -> None:
        reason = "the entry changed since it was shown; look at it again"
        super().__init__(f"MCP server {name!r}: {reason}", McpServerDetails(name=name, reason=reason))


class ArchiveInvalid(EngineError[ReasonDetails]):
    """`session.import`: not a session archive, damaged, or too large; one line for the user."""

    code = "archive-invalid"

    def __init__(self, reason: str) -> None:
        super().__init__(reason, ReasonDetails(reason=reason))
