"""File changes as the log and the approval frames carry them (no imports of our other contract
modules, so `contract/events.py` and `contract/approvals.py` can use them).

A file tool's `tool/result` carries a `FileChange` (the unified diff and the content hashes
before and after); an approval carries the same shape as a preview; `files/restored` records a
revert or a fork's restore (docs/architecture.md, "Checkpoints and undo").
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contract._base import OpenModel, WireModel


class FileState(WireModel):
    """A file's content as the host saw it: its SHA-256 (hex) and size in bytes."""

    sha256: str = Field(min_length=64, max_length=64)
    size: int = Field(ge=0)


class FileChange(OpenModel):
    """One file written by a tool (or, on an approval, what the call would write)."""

    path: str = Field(min_length=1, description="relative to the session's folder, '/'-separated")
    before: FileState | None = Field(default=None, description="absent or null: the file did not exist")
    after: FileState | None = Field(default=None, description="absent or null: the file is gone")
    diff: str | None = Field(
        default=None, description="unified diff (`---`/`+++`/`@@` lines); null when not shown"
    )
    diff_note: str | None = Field(default=None, description="why there is no diff, or why it is cut")
    added: int = Field(default=0, ge=0, description="lines added")
    removed: int = Field(default=0, ge=0, description="lines removed")
    after_kind: Literal["symlink", "directory", "other"] | None = Field(
        default=None,
        description=(
            "absent or null: `after` says what the path holds (a file, or nothing); else what a step"
            " put in the file's place (a symlink, a folder, a pipe or socket): a revert removes it"
            " and puts the file back"
        ),
    )
    after_link: str | None = Field(
        default=None, description="`afterKind` symlink: the link's text (where it points; never followed)"
    )


RestoreAction = Literal["restored", "removed", "unchanged"]


class RestoredFile(WireModel):
    """`restored`: the checkpointed content was written back; `removed`: the file did not exist
    before, so it was deleted; `unchanged`: it already had that content."""

    path: str
    action: RestoreAction
    state: FileState | None = None
    """What the file holds now (null: absent)."""


class FilesRestored(OpenModel):
    """`files/restored`: files put back, by a revert of `turn` or by a fork at `turn`."""

    cause: Literal["revert", "fork", "revert-file", "revert-hunk"]
    turn: int = Field(ge=0)
    """The reverted turn, or (fork) the last turn the files were restored to; `revert-file` /
    `revert-hunk` (the Changes view): the session's first turn that changed the file."""
    files: list[RestoredFile]
    fork_session_id: str | None = None
    """cause fork: the other session (in the parent, the child; in the child, the parent)."""
    error: str | None = None
    """Writing stopped at a failure (a full disk…): `files` lists only what was put back, and
    the revert can be tried again."""


ConflictReason = Literal["changed", "later-turn", "not-saved", "stale"]


class FileConflict(WireModel):
    path: str
    reason: ConflictReason
    """`changed`: the file was changed outside the app since; `later-turn`: a later turn changed
    it (revert that turn first); `not-saved`: its earlier content was not checkpointed (too
    large, or the session was imported); `stale`: the file (or the hunk) is not what the Changes
    view showed, so nothing was written (refresh the view)."""
