"""`git.*`: a session's repository from change to commit (issue 42).

# the review pane (docs/decisions/review-pane.md)
# commit, log, push, pull request (docs/decisions/commit-and-push.md)
"""

from __future__ import annotations

from contract import git as g
from contract.methods import (
    GIT_COMMIT,
    GIT_DISCARD,
    GIT_DRAFT_MESSAGE,
    GIT_LOG,
    GIT_PULL_REQUEST,
    GIT_PUSH,
    GIT_STAGE,
    GIT_STATUS,
    GIT_UNDO_DISCARD,
    GIT_UNSTAGE,
)
from host.api.registry import implements
from host.engine.engine import Engine

# ---- commit, log, push, pull request ------------------------------------------------------------


@implements(GIT_DRAFT_MESSAGE)
async def draft_message(engine: Engine, p: g.GitSessionRequest) -> g.DraftMessageValue:
    return g.DraftMessageValue(message=await engine.commits.draft_message(p.session_id))


@implements(GIT_COMMIT)
async def commit(engine: Engine, p: g.CommitRequest) -> g.CommitValue:
    done = await engine.commits.commit(p.session_id, p.message, p.amend)
    return g.CommitValue(sha=done.sha, hooks_skipped=done.hooks_skipped, hook_output=done.hook_output)


@implements(GIT_LOG)
async def log(engine: Engine, p: g.LogRequest) -> g.LogValue:
    log = await engine.commits.log(p.session_id, p.limit)
    items = [
        g.LogItem(
            sha=e.line.sha,
            subject=e.line.subject,
            author=e.line.author,
            at=e.line.at_ms,
            turns=[g.CoveredTurn(turn=t, seq=s) for t, s in e.turns],
        )
        for e in log.entries
    ]
    return g.LogValue(items=items, branch=log.branch, staged=log.staged)


@implements(GIT_PUSH)
async def push(engine: Engine, p: g.GitSessionRequest) -> g.PushValue:
    done = await engine.commits.push(p.session_id)
    return g.PushValue(remote=done.remote, branch=done.branch, upstream_set=done.upstream_set)


@implements(GIT_PULL_REQUEST)
async def pull_request(engine: Engine, p: g.PullRequestRequest) -> g.PullRequestValue:
    url, created = await engine.commits.pull_request(p.session_id, p.title, p.body)
    return g.PullRequestValue(url=url, created=created)


# ---- the review pane (docs/decisions/review-pane.md) ------------------------------------------


@implements(GIT_STATUS)
async def status(engine: Engine, p: g.ReviewStatusRequest) -> g.ReviewStatusValue:
    return await engine.review.status(p.session_id, p.scope)


@implements(GIT_STAGE)
async def stage(engine: Engine, p: g.ReviewChangeRequest) -> g.ReviewChangeValue:
    return await engine.review.stage(p.session_id, p.paths, p.hunk_ids)


@implements(GIT_UNSTAGE)
async def unstage(engine: Engine, p: g.ReviewChangeRequest) -> g.ReviewChangeValue:
    return await engine.review.unstage(p.session_id, p.paths, p.hunk_ids)


@implements(GIT_DISCARD)
async def discard(engine: Engine, p: g.ReviewChangeRequest) -> g.DiscardValue:
    return await engine.review.discard(p.session_id, p.paths, p.hunk_ids)


@implements(GIT_UNDO_DISCARD)
async def undo_discard(engine: Engine, p: g.UndoDiscardRequest) -> g.ReviewChangeValue:
    return await engine.review.undo_discard(p.session_id, p.undo_id)


# ---- end of the review pane's block -----------------------------------------------------------
