"""`git.*`: a session's repository in the review pane and the commit box. Each helper's handlers
stay in their own block below."""

from __future__ import annotations

from contract import git as g
from host.api.registry import implements
from host.engine.engine import Engine

# ---- the review pane (docs/decisions/review-pane.md) ------------------------------------------


@implements("git.status")
async def status(engine: Engine, p: g.ReviewStatusRequest) -> g.ReviewStatusValue:
    return await engine.review.status(p.session_id, p.scope)


@implements("git.stage")
async def stage(engine: Engine, p: g.ReviewChangeRequest) -> g.ReviewChangeValue:
    return await engine.review.stage(p.session_id, p.paths, p.hunk_ids)


@implements("git.unstage")
async def unstage(engine: Engine, p: g.ReviewChangeRequest) -> g.ReviewChangeValue:
    return await engine.review.unstage(p.session_id, p.paths, p.hunk_ids)


@implements("git.discard")
async def discard(engine: Engine, p: g.ReviewChangeRequest) -> g.DiscardValue:
    return await engine.review.discard(p.session_id, p.paths, p.hunk_ids)


@implements("git.undoDiscard")
async def undo_discard(engine: Engine, p: g.UndoDiscardRequest) -> g.ReviewChangeValue:
    return await engine.review.undo_discard(p.session_id, p.undo_id)


# ---- end of the review pane's block -----------------------------------------------------------
