"""The `workspace.*` domain: registered project folders, their sessions in manual order, and the
registry-wide archive set (docs/decisions.md "Workspaces").

A workspace is a registration of one canonical directory; it never owns the directory or the
session logs. Grouping is `WorkspaceView.sessionIds`: `SessionSummary` has no workspace field.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from contract._base import WireModel
from contract.paths import HostPath
from contract.remotes import HostId
from contract.sessions import SessionId

WorkspaceId = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")]
"""An id as a request carries it (checked strictly)."""
Id = Annotated[str, Field(min_length=1)]
"""An id as the host writes it in values and frames (the host minted or checked it already)."""


class WorkspaceView(WireModel):
    """The row every `workspace.*` value and workspace frame carries."""

    workspace_id: Id
    path: str = Field(description="canonical directory (realpath at create time), never rewritten")
    title: str
    session_ids: list[Id] = Field(description="manual order; attach prepends")
    created_at: str = Field(description="ISO-8601")
    updated_at: str = Field(description="ISO-8601 time of the last durable change to the record")
    trusted: bool = Field(
        default=False,
        description="folder trust: what the project brings (.mcp.json, hooks) runs only when true",
    )


# workspace.list
class WorkspaceListRequest(WireModel):
    pass


class WorkspaceListValue(WireModel):
    items: list[WorkspaceView] = Field(description="durable registry order, newest first")
    archived_session_ids: list[Id]


# workspace.create
class WorkspaceCreateRequest(WireModel):
    path: HostPath = Field(min_length=1)
    host_id: HostId | None = Field(
        default=None,
        description="a remote host's id (remote.list): the call is made there; absent: this host",
    )


class WorkspaceCreateValue(WireModel):
    workspace: WorkspaceView
    created: bool


# workspace.rename
class WorkspaceRenameRequest(WireModel):
    workspace_id: WorkspaceId
    title: str = Field(max_length=500)

    @field_validator("title")
    @classmethod
    def _visible(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("title must not be blank")
        return v


class WorkspaceValue(WireModel):
    workspace: WorkspaceView


# workspace.setTrust (privileged)
class SetTrustRequest(WireModel):
    workspace_id: WorkspaceId
    trusted: bool


# workspace.delete
class WorkspaceRef(WireModel):
    workspace_id: WorkspaceId


class WorkspaceDeleted(WireModel):
    deleted: Literal[True] = True


# workspace.insertSessionBefore
class InsertSessionBeforeRequest(WireModel):
    workspace_id: WorkspaceId
    session_id: SessionId
    before_session_id: SessionId | None = None


# workspace.archiveSession / workspace.unarchiveSession
class ArchiveRequest(WireModel):
    session_id: SessionId


class ArchivedValue(WireModel):
    archived_session_ids: list[Id] = Field(description="the whole set after the change")


# ---- frames on events.host ---------------------------------------------------------------------


class HostWorkspaceChanged(WireModel):
    """A committed write to one workspace record (a new one included): its full snapshot."""

    type: Literal["host/workspace-changed"] = "host/workspace-changed"
    workspace: WorkspaceView


class HostWorkspaceRemoved(WireModel):
    """The registration was deleted; never the directory or any session log."""

    type: Literal["host/workspace-removed"] = "host/workspace-removed"
    workspace_id: Id


class HostArchivedSessionsChanged(WireModel):
    type: Literal["host/archived-sessions-changed"] = "host/archived-sessions-changed"
    archived_session_ids: list[Id]
