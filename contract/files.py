"""The `files.*` domain: what the agent's file tools changed, and undoing it.

A file tool's `tool/result` carries a `FileChange` (the unified diff and the content hashes
before and after); an approval carries the same shape as a preview. Before a turn's first change
to a file the host checkpoints its content (or absence), content-addressed, so
`files.revertTurn` can put it back (docs/architecture.md, "Checkpoints and undo").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from contract._base import WireModel
from contract.filechange import FileConflict, FileState, RestoredFile
from contract.sessions import MAX_SEQ, SessionId


# files.revertTurn
class RevertTurnRequest(WireModel):
    session_id: SessionId
    turn: int = Field(ge=0)


class RevertTurnValue(WireModel):
    turn: int
    files: list[RestoredFile]
    seq: int
    """The seq of the `files/restored` event that records it."""


# files.restorePreview
class RestorePreviewRequest(WireModel):
    session_id: SessionId
    at_seq: int | None = Field(default=None, ge=0, le=MAX_SEQ)
    """The fork point (as `session.fork`'s `atSeq`): the files changed after that turn."""


class RestorePreviewValue(WireModel):
    turn: int
    """The turn a fork at `atSeq` ends with: files would be restored to how it left them."""
    files: list[RestoredFile]
    """What a fork with `restoreFiles` would do (only entries that are not `unchanged`)."""
    conflicts: list[FileConflict]
    """Files that cannot be restored; a fork with `restoreFiles` is refused while there are any."""


# files.spaceUsed / files.freeSpace
class SpaceUsedRequest(WireModel):
    pass


class FolderSpace(WireModel):
    """The snapshots of one folder (docs/architecture.md, "Snapshots")."""

    path: str
    """The folder's real path."""
    bytes: int = Field(ge=0)
    turns: int = Field(ge=0)
    """How many turns' shell changes can still be reverted from these snapshots."""
    note: str | None = None
    """Why this folder's shell changes are not kept (too many files, or larger than its budget)."""


class SpaceUsedValue(WireModel):
    folders: list[FolderSpace]
    total_bytes: int = Field(ge=0)
    folder_budget_bytes: int = Field(ge=0)
    total_budget_bytes: int = Field(ge=0)
    unavailable: str | None = None
    """Why snapshots are off on this machine (git missing); null when they are on."""


class FreeSpaceRequest(WireModel):
    path: str | None = Field(default=None, min_length=1, max_length=4096)
    """One folder (a `path` of `files.spaceUsed`); absent: every folder."""


class FreeSpaceValue(WireModel):
    freed_bytes: int = Field(ge=0)


# files.gitStatus
class GitStatusRequest(WireModel):
    session_id: SessionId


class GitStatusValue(WireModel):
    """The session folder's git state, for the header (docs/architecture.md, "Workspaces and
    host folders"); `repo` false when the folder is not in a git work tree (or git did not
    answer in time)."""

    repo: bool
    branch: str | None = Field(default=None, max_length=1000)
    """The checked-out branch; null when detached (or not a repo)."""
    changed: int | None = Field(default=None, ge=0)
    """Entries `git status --porcelain` lists: modified, added, deleted and untracked files;
    null when they were not counted (`withheld` says why)."""
    withheld: Literal["untrusted-config", "no-sandbox", "failed"] | None = None
    """Why `changed` is null: the repository's git configuration names programs and the folder is
    not trusted (`findings` lists them); this machine has no sandbox to run them in; git failed or
    was too slow (docs/decisions.md, "The host's git")."""
    findings: list[Annotated[str, Field(max_length=500)]] = Field(default_factory=list, max_length=10)
    """What the configuration names (`filter.x.clean`, `core.fsmonitor`, `commondir` …)."""


# files.sessionChanges / files.revertFile / files.revertHunk: the Changes view
# (docs/architecture.md, "The Changes view")
HEX64 = r"^[0-9a-f]{64}$"


class SessionChangesRequest(WireModel):
    session_id: SessionId


class ChangeHunk(WireModel):
    """One hunk of a file's combined diff; `id` (SHA-256 of its text) names it to `revertHunk`."""

    id: str = Field(pattern=HEX64)
    diff: str
    """The `@@` line and its lines (3 lines of context)."""
    added: int = Field(ge=0)
    removed: int = Field(ge=0)


class SessionFileChange(WireModel):
    """A file the session changed: its content before the session's first change to it, against
    what it holds now (edits made outside the app included)."""

    path: str
    status: Literal["added", "modified", "deleted"]
    before: FileState | None = None
    """At the session's start (absent or null: the file did not exist)."""
    after: FileState | None = None
    """Now (absent or null: the file is gone)."""
    turns: list[int]
    """The turns that changed it (file tools and shell commands), in order."""
    hunks: list[ChangeHunk]
    added: int = Field(default=0, ge=0)
    removed: int = Field(default=0, ge=0)
    binary: bool = False
    too_big: bool = False
    note: str | None = None
    """Why there are no hunks (binary, too large, no saved copy)."""
    revertable: bool
    """Its session-start content is kept (a file tool's checkpoint or a snapshot)."""


class SessionChangesValue(WireModel):
    files: list[SessionFileChange]
    """Files whose content now differs from the session's start, by path."""


class RevertFileRequest(WireModel):
    session_id: SessionId
    path: str = Field(min_length=1, max_length=4096)
    current: str | None = Field(default=None, pattern=HEX64)
    """The SHA-256 the view showed as `after` (absent or null: the file was absent); the file
    holding anything else is `stale`."""


class RevertHunkRequest(WireModel):
    session_id: SessionId
    path: str = Field(min_length=1, max_length=4096)
    hunk_id: str = Field(pattern=HEX64)
    current: str | None = Field(default=None, pattern=HEX64)
    """As `revertFile`: the hunk is looked up in the diff against exactly that content."""


class RevertChangeValue(WireModel):
    file: RestoredFile
    seq: int
    """The seq of the `files/restored` event that records it."""
