"""The `worktree.*` domain: sessions that work in a git worktree of their folder's repository, and
the hand-off of their work to the person's checkout (docs/decisions.md, "Worktree sessions").

`session.create {worktree}` starts a session in a new worktree (or an existing one); the session
projection `worktree` and `session.list` items carry its `WorktreeState`. `contract.sessions`
imports this module, so it names no model of that one.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from contract._base import WireModel
from contract.paths import HostPath

WORKTREE_KEY = "worktree"
"""The session projection key: the session's `WorktreeState`, or null (a local session)."""

SessionKey = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")]
"""A session id as a request carries it (`contract.sessions.SessionId`, which imports us)."""
WorkspaceKey = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")]

MAX_BRANCH = 200
MAX_COPY = 50
MAX_SETUP = 2000

_BAD_BRANCH = re.compile(
    r"(^[-/.])|(/[./])|(\.\.)|(@\{)|([\x00-\x20\x7f~^:?*\[\\])|([/.]$)|(\.lock$)|(\.lock/)"
)


def branch_problem(name: str) -> str | None:
    """Why git would refuse `name` as a branch (`git check-ref-format --branch`'s rules), or None."""
    if not name or len(name) > MAX_BRANCH:
        return f"a branch name has 1 to {MAX_BRANCH} characters"
    if name == "@" or name == "HEAD" or _BAD_BRANCH.search(name):
        return f"{name!r} is not a branch name git accepts"
    return None


def _branch(v: str | None) -> str | None:
    if v is None:
        return v
    problem = branch_problem(v)
    if problem:
        raise ValueError(problem)
    return v


BranchName = Annotated[str, Field(min_length=1, max_length=MAX_BRANCH)]


class WorktreeSpec(WireModel):
    """`session.create`'s `worktree`: where the new session works.

    - `{}` or `{branch}` with a new name: a new worktree on a new branch (named by the host when
      absent) made from `base` (default: the checkout's current branch);
    - `{branch}` naming an existing branch: a new worktree on that branch;
    - `{path}`: an existing worktree of the repository (`worktree.options` lists them).
    `carryChanges` copies the checkout's uncommitted changes into a new worktree (they stay in
    the checkout too)."""

    branch: BranchName | None = None
    base: BranchName | None = None
    path: HostPath | None = Field(default=None, min_length=1)
    carry_changes: bool = False

    @field_validator("branch", "base")
    @classmethod
    def _branch_names(cls, v: str | None) -> str | None:
        return _branch(v)

    @model_validator(mode="after")
    def _one_kind(self) -> WorktreeSpec:
        if self.path is not None and (self.branch is not None or self.carry_changes):
            raise ValueError("an existing worktree (path) takes no branch and carries no changes")
        return self


class WorktreeState(WireModel):
    """A session's worktree as the session projection and `session.list` show it; `ahead`,
    `behind` and `dirty` are fresh at each turn end, on every `worktree.list` and after a
    hand-off."""

    path: str
    branch: str
    base: str
    ahead: int = Field(ge=0, description="commits on the branch that `base` does not have")
    behind: int = Field(ge=0, description="commits on `base` that the branch does not have")
    dirty: bool = Field(description="the worktree holds uncommitted changes")
    owned: bool = Field(default=True, description="HarnessDesk made it (a person's own is never removed)")


# worktree.list
class WorktreeListRequest(WireModel):
    workspace_id: WorkspaceKey | None = None


class WorktreeItem(WorktreeState):
    session_id: str


class WorktreeListValue(WireModel):
    items: list[WorktreeItem]


# worktree.apply / worktree.merge / worktree.adopt
class WorktreeSessionRequest(WireModel):
    session_id: SessionKey


class WorktreeApplyValue(WireModel):
    files: list[str] = Field(description="what arrived in the checkout as uncommitted changes")
    removed: list[str] = Field(default_factory=list, description="files deleted in the checkout")


class WorktreeMergeValue(WireModel):
    commit: str
    fast_forward: bool
    up_to_date: bool = Field(default=False, description="the base had every commit already")


class WorktreeRemoveRequest(WireModel):
    session_id: SessionKey
    keep_branch: bool
    force: bool = Field(
        default=False,
        description="also when the worktree has uncommitted changes, or the branch commits not in"
        " its base (they are lost)",
    )


class WorktreeRemoveValue(WireModel):
    removed_worktree: bool = Field(description="false for a worktree the person made: it stays")
    deleted_branch: bool
    cwd: str = Field(description="where the session works now (the checkout)")


class WorktreeAdoptRequest(WireModel):
    """`worktree.adopt`: a local session moves to a new worktree, its checkout's uncommitted
    changes with it (they leave the checkout)."""

    session_id: SessionKey
    branch: BranchName | None = None

    @field_validator("branch")
    @classmethod
    def _branch_name(cls, v: str | None) -> str | None:
        return _branch(v)


# worktree.options: what New session offers for a folder
class WorktreeOptionsRequest(WireModel):
    workspace_id: WorkspaceKey | None = None
    cwd: HostPath | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _one_place(self) -> WorktreeOptionsRequest:
        if (self.workspace_id is None) == (self.cwd is None):
            raise ValueError("send workspaceId or cwd")
        return self


class ExistingWorktree(WireModel):
    path: str
    branch: str | None = None
    owned: bool
    """HarnessDesk made it; a person's own worktree is listed, never removed."""


class WorktreeSettingsView(WireModel):
    enabled: bool = Field(description="New session starts in a new worktree here (remembered)")
    location: str | None = Field(default=None, description="where worktrees go; null: the data folder")
    copy_files: list[str] = Field(default_factory=list, description="ignored files copied in (.env)")
    setup: str | None = Field(default=None, description="run in the sandbox before the first turn")


class WorktreeOptionsValue(WireModel):
    repository: bool
    top: str | None = None
    current_branch: str | None = None
    branches: list[str] = Field(default_factory=list)
    worktrees: list[ExistingWorktree] = Field(default_factory=list)
    local_changes: int | None = Field(
        default=None, description="uncommitted entries in the checkout (null: not counted)"
    )
    withheld: Literal["untrusted-config", "no-sandbox"] | None = Field(
        default=None, description="why git was not run: trust the folder first"
    )
    settings: WorktreeSettingsView


# worktree.configure
class WorktreeConfigureRequest(WireModel):
    workspace_id: WorkspaceKey
    enabled: bool | None = None
    location: HostPath | None = Field(default=None, min_length=1)
    clear_location: bool = False
    copy_files: list[Annotated[str, Field(min_length=1, max_length=500)]] | None = Field(
        default=None, max_length=MAX_COPY
    )
    setup: str | None = Field(default=None, max_length=MAX_SETUP)

    @field_validator("copy_files")
    @classmethod
    def _relative(cls, v: list[str] | None) -> list[str] | None:
        for entry in v or []:
            if entry.startswith(("/", "~")) or ".." in entry.replace("\\", "/").split("/") or "\x00" in entry:
                raise ValueError(f"{entry!r}: a path inside the repository, without '..'")
        return v

    @model_validator(mode="after")
    def _location(self) -> WorktreeConfigureRequest:
        if self.clear_location and self.location is not None:
            raise ValueError("send location or clearLocation, not both")
        return self


# worktree.spaceUsed
class WorktreeSpaceRequest(WireModel):
    pass


class WorktreeSpace(WireModel):
    path: str
    branch: str
    bytes: int = Field(ge=0)
    owned: bool


class WorktreeSpaceValue(WireModel):
    items: list[WorktreeSpace]
    total_bytes: int = Field(ge=0)
