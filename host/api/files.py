"""`files.*`: undoing what the agent changed, and the disk its snapshots take (docs/architecture.md,
"Checkpoints and undo", "Snapshots"); the Files pane's tree and viewer."""

from __future__ import annotations

from contract import file_tree as ft
from contract import files as f
from contract.methods import (
    FILES_FREE_SPACE,
    FILES_GIT_STATUS,
    FILES_READ,
    FILES_RESTORE_PREVIEW,
    FILES_REVERT_FILE,
    FILES_REVERT_HUNK,
    FILES_REVERT_TURN,
    FILES_SESSION_CHANGES,
    FILES_SPACE_USED,
    FILES_TREE,
)
from host.api.registry import implements
from host.engine.engine import Engine


@implements(FILES_REVERT_TURN)
async def revert_turn(engine: Engine, p: f.RevertTurnRequest) -> f.RevertTurnValue:
    return await engine.files.revert_turn(p.session_id, p.turn)


@implements(FILES_RESTORE_PREVIEW)
async def restore_preview(engine: Engine, p: f.RestorePreviewRequest) -> f.RestorePreviewValue:
    return await engine.files.restore_preview(p.session_id, p.at_seq)


@implements(FILES_SPACE_USED)
async def space_used(engine: Engine, p: f.SpaceUsedRequest) -> f.SpaceUsedValue:
    return await engine.files.snapshot_space()


@implements(FILES_FREE_SPACE)
async def free_space(engine: Engine, p: f.FreeSpaceRequest) -> f.FreeSpaceValue:
    return f.FreeSpaceValue(freed_bytes=await engine.files.free_snapshot_space(p.path))


@implements(FILES_GIT_STATUS)
async def git_status(engine: Engine, p: f.GitStatusRequest) -> f.GitStatusValue:
    return await engine.files.git_status(p.session_id)


# the Changes view (docs/architecture.md, "The Changes view")
@implements(FILES_SESSION_CHANGES)
async def session_changes(engine: Engine, p: f.SessionChangesRequest) -> f.SessionChangesValue:
    return await engine.changes.list(p.session_id)


@implements(FILES_REVERT_FILE)
async def revert_file(engine: Engine, p: f.RevertFileRequest) -> f.RevertChangeValue:
    return await engine.changes.revert(p.session_id, p.path, p.current, None)


@implements(FILES_REVERT_HUNK)
async def revert_hunk(engine: Engine, p: f.RevertHunkRequest) -> f.RevertChangeValue:
    return await engine.changes.revert(p.session_id, p.path, p.current, p.hunk_id)


# the Files pane (docs/decisions.md, "Terminal and files")
@implements(FILES_TREE)
async def tree(engine: Engine, p: ft.TreeRequest) -> ft.TreeValue:
    return await engine.file_tree.tree(p.session_id, p.path, p.show_ignored)


@implements(FILES_READ)
async def read(engine: Engine, p: ft.ReadRequest) -> ft.ReadValue:
    return await engine.file_tree.read(p.session_id, p.path, p.start_line, p.max_lines)
