"""`workspace.*`: the registry of project folders and the archive set (docs/decisions.md
"Workspaces"). Every change is announced on the host stream by the engine itself."""

from __future__ import annotations

from contract import workspaces as w
from contract.methods import (
    WORKSPACE_ARCHIVE_SESSION,
    WORKSPACE_CREATE,
    WORKSPACE_DELETE,
    WORKSPACE_INSERT_SESSION_BEFORE,
    WORKSPACE_LIST,
    WORKSPACE_RENAME,
    WORKSPACE_SET_TRUST,
    WORKSPACE_UNARCHIVE_SESSION,
)
from host.api.registry import implements
from host.engine.engine import Engine


@implements(WORKSPACE_LIST)
async def list_workspaces(engine: Engine, p: w.WorkspaceListRequest) -> w.WorkspaceListValue:
    items, archived = engine.workspaces.list_workspaces()
    return w.WorkspaceListValue(items=items, archived_session_ids=archived)


@implements(WORKSPACE_CREATE)
async def create(engine: Engine, p: w.WorkspaceCreateRequest) -> w.WorkspaceCreateValue:
    view, created = await engine.workspaces.create_workspace(p.path)
    return w.WorkspaceCreateValue(workspace=view, created=created)


@implements(WORKSPACE_RENAME)
async def rename(engine: Engine, p: w.WorkspaceRenameRequest) -> w.WorkspaceValue:
    return w.WorkspaceValue(workspace=await engine.workspaces.rename_workspace(p.workspace_id, p.title))


@implements(WORKSPACE_DELETE)
async def delete(engine: Engine, p: w.WorkspaceRef) -> w.WorkspaceDeleted:
    await engine.workspaces.delete_workspace(p.workspace_id)
    return w.WorkspaceDeleted()


@implements(WORKSPACE_INSERT_SESSION_BEFORE)
async def insert_session_before(engine: Engine, p: w.InsertSessionBeforeRequest) -> w.WorkspaceValue:
    view = await engine.workspaces.move_session(p.workspace_id, p.session_id, p.before_session_id)
    return w.WorkspaceValue(workspace=view)


@implements(WORKSPACE_ARCHIVE_SESSION)
async def archive_session(engine: Engine, p: w.ArchiveRequest) -> w.ArchivedValue:
    return w.ArchivedValue(archived_session_ids=await engine.workspaces.archive_session(p.session_id))


@implements(WORKSPACE_UNARCHIVE_SESSION)
async def unarchive_session(engine: Engine, p: w.ArchiveRequest) -> w.ArchivedValue:
    return w.ArchivedValue(archived_session_ids=await engine.workspaces.unarchive_session(p.session_id))


@implements(WORKSPACE_SET_TRUST)
async def set_trust(engine: Engine, p: w.SetTrustRequest) -> w.WorkspaceValue:
    return w.WorkspaceValue(workspace=await engine.workspaces.set_workspace_trust(p.workspace_id, p.trusted))
