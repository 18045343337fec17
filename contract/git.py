"""The `git.*` domain: a session's repository from change to commit (issue 42).

# commit, log, push, pull request
`git.draftMessage` drafts a commit message from the staged diff with the session's model (never
committed without the person's click); `git.commit` commits what is staged as the person, hooks
running only in a trusted folder; `git.log` lists the branch's commits with the session turns
each covers; `git.push` and `git.pullRequest` use the person's credentials, on their click
(docs/decisions/commit-and-push.md).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from contract._base import WireModel
from contract.sessions import SessionId

# ---- commit, log, push, pull request -------------------------------------------------------------

MAX_MESSAGE = 20_000
"""A commit message of more is not a message a person wrote or read."""
MAX_TITLE = 300
MAX_BODY = 60_000
LOG_DEFAULT = 20
LOG_MAX = 200

Sha = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]


class GitSessionRequest(WireModel):
    session_id: SessionId


class DraftMessageValue(WireModel):
    message: str
    """A subject line, a blank line and a short body; the person edits it before committing."""


class CommitRequest(WireModel):
    session_id: SessionId
    message: str = Field(min_length=1, max_length=MAX_MESSAGE)
    amend: bool = False
    """Replace the branch's last commit with the staged changes and this message."""


class CommitValue(WireModel):
    sha: Sha
    hooks_skipped: bool
    """True when the folder is not trusted: its hooks did not run (docs/decisions/commit-and-push.md)."""
    hook_output: str = ""
    """What the hooks printed (a trusted folder), cut to its last lines."""


class LogRequest(WireModel):
    session_id: SessionId
    limit: int = Field(default=LOG_DEFAULT, ge=1, le=LOG_MAX)


class CoveredTurn(WireModel):
    turn: int = Field(ge=0)
    """The turn's number in the session (0 is the first)."""
    seq: int = Field(ge=0)
    """The event the turn starts at: the transcript scrolls there."""


class LogItem(WireModel):
    sha: Sha
    subject: str
    author: str
    at: int
    """Author time, ms since the epoch."""
    turns: list[CoveredTurn] = Field(default_factory=list)
    """The session's turns this commit covers, recorded when it was made from this session."""


class LogValue(WireModel):
    items: list[LogItem]
    branch: str | None = None
    """The checked-out branch (None: detached)."""
    staged: list[str] = Field(default_factory=list)
    """The paths staged now (what Commit would take), repository-relative."""


class PushValue(WireModel):
    remote: str
    branch: str
    upstream_set: bool
    """This push set the branch's upstream (its first push)."""


class PullRequestRequest(WireModel):
    session_id: SessionId
    title: str = Field(min_length=1, max_length=MAX_TITLE)
    body: str = Field(default="", max_length=MAX_BODY)


class PullRequestValue(WireModel):
    url: str
    created: bool
    """False: `url` is the hosting site's compare page (no `gh`, or not logged in) for the
    person to open and submit."""
