"""`git.*`: a session's repository from change to commit (issue 42).

# commit, log, push, pull request (docs/decisions/commit-and-push.md)
"""

from __future__ import annotations

from contract import git as g
from host.api.registry import implements
from host.engine.engine import Engine

# ---- commit, log, push, pull request ------------------------------------------------------------


@implements("git.draftMessage")
async def draft_message(engine: Engine, p: g.GitSessionRequest) -> g.DraftMessageValue:
    return g.DraftMessageValue(message=await engine.commits.draft_message(p.session_id))


@implements("git.commit")
async def commit(engine: Engine, p: g.CommitRequest) -> g.CommitValue:
    done = await engine.commits.commit(p.session_id, p.message, p.amend)
    return g.CommitValue(sha=done.sha, hooks_skipped=done.hooks_skipped, hook_output=done.hook_output)


@implements("git.log")
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


@implements("git.push")
async def push(engine: Engine, p: g.GitSessionRequest) -> g.PushValue:
    done = await engine.commits.push(p.session_id)
    return g.PushValue(remote=done.remote, branch=done.branch, upstream_set=done.upstream_set)


@implements("git.pullRequest")
async def pull_request(engine: Engine, p: g.PullRequestRequest) -> g.PullRequestValue:
    url, created = await engine.commits.pull_request(p.session_id, p.title, p.body)
    return g.PullRequestValue(url=url, created=created)
