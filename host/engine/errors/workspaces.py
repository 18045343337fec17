"""Workspaces and host folders, and the one business use of `internal`."""

from __future__ import annotations

from contract.errors import (
    CapabilityDetails,
    InternalDetails,
    NameDetails,
    PathDetails,
    WorkspaceAttachDetails,
    WorkspaceDetails,
    WorkspaceMoveDetails,
)
from host.engine.errors.base import EngineError


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
