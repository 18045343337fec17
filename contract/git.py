"""The `git.*` domain: a session's repository from change to commit (issue 42).

# the review pane
`git.status` shows the repository in four scopes as the smallest hunks; `git.stage`,
`git.unstage`, `git.discard` and `git.undoDiscard` act on files or single hunks
(docs/decisions/review-pane.md).

# commit, log, push, pull request
`git.draftMessage` drafts a commit message from the staged diff with the session's model (never
committed without the person's click); `git.commit` commits what is staged as the person, hooks
running only in a trusted folder; `git.log` lists the branch's commits with the session turns
each covers; `git.push` and `git.pullRequest` use the person's credentials, on their click
(docs/decisions/commit-and-push.md).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

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


# ---- the review pane: git.status / stage / unstage / discard / undoDiscard -------------------
# (docs/decisions/review-pane.md)

HEX64 = r"^[0-9a-f]{64}$"
MAX_PATHS = 1000
MAX_HUNKS = 1000

ReviewScope = Literal["session", "uncommitted", "branch", "last-turn"]
"""`session`: the uncommitted changes to the files this session changed; `uncommitted`: everything
`git status` shows (files the session did not change are `mine`); `branch`: against the base the
branch left (a worktree's base, else the upstream's default branch); `last-turn`: the uncommitted
changes to the files the last turn changed."""

ReviewFileStatus = Literal[
    "added", "modified", "deleted", "renamed", "copied", "typechange", "unmerged", "untracked"
]


class ReviewHunk(WireModel):
    """The smallest run of changed lines (`git diff -U0`): `id` names it to stage, unstage or
    discard; it changes whenever its text or its place changes."""

    id: str = Field(pattern=HEX64)
    header: str
    """The `@@ -a,b +c,d @@` line: where the run is on the old and the new side."""
    diff: str
    """The `@@` line and the run's `-`/`+` lines."""
    added: int = Field(ge=0)
    removed: int = Field(ge=0)


class ReviewFile(WireModel):
    path: str
    old_path: str | None = None
    """A rename's or copy's source."""
    status: ReviewFileStatus
    binary: bool = False
    staged: list[ReviewHunk] = Field(default_factory=list)
    """Changes in the index (`branch`: everything since the base, committed or staged)."""
    unstaged: list[ReviewHunk] = Field(default_factory=list)
    """Changes in the work tree not staged (an untracked text file: one hunk adding it)."""
    has_staged: bool = False
    """Something of this file is staged (a binary file has no hunks to say so)."""
    has_unstaged: bool = False
    mine: bool = False
    """`uncommitted`/`branch`: the session did not change this file (the person's own edit)."""


class ReviewStatusRequest(WireModel):
    session_id: SessionId
    scope: ReviewScope = "session"


class ReviewStatusValue(WireModel):
    scope: ReviewScope
    files: list[ReviewFile]
    base: str | None = None
    """`branch`: the ref compared with (`main`, `origin/main`)."""
    withheld: Literal["untrusted-config", "no-base"] | None = None
    """Why `files` is empty without looking: the repository's configuration names programs and
    the folder is not trusted (`findings` says what), or `branch` found no base to compare with."""
    findings: list[str] = Field(default_factory=list)


class ReviewChangeRequest(WireModel):
    """Whole files (`paths`, repository-relative as `git.status` names them) and single hunks
    (`hunkIds` from `git.status`); at least one of them."""

    session_id: SessionId
    paths: list[str] | None = Field(default=None, max_length=MAX_PATHS)
    hunk_ids: list[str] | None = Field(default=None, max_length=MAX_HUNKS)

    @model_validator(mode="after")
    def _something(self) -> ReviewChangeRequest:
        if not self.paths and not self.hunk_ids:
            raise ValueError("name paths or hunkIds")
        for p in self.paths or []:
            if not p or len(p) > 4096 or "\0" in p:
                raise ValueError("a path is empty, too long or holds a NUL")
        for h in self.hunk_ids or []:
            if len(h) != 64 or any(c not in "0123456789abcdef" for c in h):
                raise ValueError("a hunk id is 64 lowercase hex digits")
        return self


class ReviewChangeValue(WireModel):
    paths: list[str]
    """The files the call changed (in the index, or on disk for a discard)."""


class DiscardValue(ReviewChangeValue):
    undo_id: str
    """Names the discard to `git.undoDiscard` (the host keeps what it discarded until then)."""


class UndoDiscardRequest(WireModel):
    session_id: SessionId
    undo_id: str = Field(pattern=r"^[0-9a-f]{32}$")


# ---- end of the review pane's block ----------------------------------------------------------
