"""`worktree.*`: sessions in git worktrees and the hand-off of their work (docs/decisions.md,
"Worktree sessions")."""

from __future__ import annotations

from contract import worktrees as w
from contract.methods import (
    WORKTREE_ADOPT,
    WORKTREE_APPLY,
    WORKTREE_CONFIGURE,
    WORKTREE_LIST,
    WORKTREE_MERGE,
    WORKTREE_OPTIONS,
    WORKTREE_REMOVE,
    WORKTREE_SPACE_USED,
)
from host.api.registry import implements
from host.engine.engine import Engine


@implements(WORKTREE_LIST)
async def list_worktrees(engine: Engine, p: w.WorktreeListRequest) -> w.WorktreeListValue:
    return w.WorktreeListValue(items=await engine.worktrees.list(p.workspace_id))


@implements(WORKTREE_APPLY)
async def apply(engine: Engine, p: w.WorktreeSessionRequest) -> w.WorktreeApplyValue:
    done = await engine.worktrees.apply(p.session_id)
    return w.WorktreeApplyValue(files=done.files, removed=done.removed)


@implements(WORKTREE_MERGE)
async def merge(engine: Engine, p: w.WorktreeSessionRequest) -> w.WorktreeMergeValue:
    done = await engine.worktrees.merge(p.session_id)
    return w.WorktreeMergeValue(
        commit=done.commit, fast_forward=done.fast_forward, up_to_date=done.up_to_date
    )


@implements(WORKTREE_REMOVE)
async def remove(engine: Engine, p: w.WorktreeRemoveRequest) -> w.WorktreeRemoveValue:
    removed, deleted, cwd = await engine.worktrees.remove(p.session_id, p.keep_branch, p.force)
    return w.WorktreeRemoveValue(removed_worktree=removed, deleted_branch=deleted, cwd=cwd)


@implements(WORKTREE_ADOPT)
async def adopt(engine: Engine, p: w.WorktreeAdoptRequest) -> w.WorktreeState:
    return await engine.worktrees.adopt(p.session_id, p.branch)


@implements(WORKTREE_OPTIONS)
async def options(engine: Engine, p: w.WorktreeOptionsRequest) -> w.WorktreeOptionsValue:
    return await engine.worktrees.options(p.workspace_id, p.cwd)


@implements(WORKTREE_CONFIGURE)
async def configure(engine: Engine, p: w.WorktreeConfigureRequest) -> w.WorktreeSettingsView:
    changes = p.model_dump(exclude_unset=True, exclude={"workspace_id", "clear_location"})
    if p.clear_location:
        changes["location"] = None
    return await engine.worktrees.configure(p.workspace_id, changes)


@implements(WORKTREE_SPACE_USED)
async def space_used(engine: Engine, p: w.WorktreeSpaceRequest) -> w.WorktreeSpaceValue:
    return await engine.worktrees.space_used()
