"""`files.tree` and `files.read`: the Files pane's look at a session's folder (docs/decisions.md,
"Terminal and files").

Read-only and not privileged (like `finder.find`): every path is relative to the session's
folder, and one that resolves outside it (a `..`, a symlink leading out) is `outside-folder`.
The tree is listed one folder level per call (the pane loads lazily), hides what `.gitignore`
ignores unless asked, and marks git's status and what this session changed. `files/changed`
frames say which paths changed on disk (the folder is watched while a pane looks at it).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contract._base import WireModel
from contract.paths import HostPath
from contract.sessions import SessionId

GitMark = Literal["modified", "added", "deleted", "renamed", "untracked", "ignored"]
MAX_READ_BYTES = 10 << 20
"""A file larger than this is read only by range (`startLine`/`maxLines`)."""
MAX_RANGE_BYTES = 1 << 20
"""The text one ranged read may return."""
MAX_LINES = 20_000
MAX_IMAGE_BYTES = 5 << 20
"""An image up to this size comes back whole (base64) for the viewer to show."""
MAX_ENTRIES = 5_000
"""Entries one level lists at most (`truncated` says when there were more)."""


# files.tree
class TreeRequest(WireModel):
    session_id: SessionId
    path: HostPath = ""
    """A folder relative to the session's folder ("" for the folder itself)."""
    show_ignored: bool = False


class TreeEntry(WireModel):
    path: str
    """Relative to the session's folder, "/"-separated."""
    kind: Literal["file", "dir", "symlink"]
    size: int = Field(ge=0)
    git: GitMark | None = None
    """A folder carries the mark of what is inside it (`modified` when anything tracked inside
    changed, else `untracked` / `added` when that is all there is); a deleted file is listed with
    `deleted` although it is gone from the disk."""
    target: Literal["file", "dir"] | None = None
    """For a symlink: what it leads to, when that is inside the session's folder (else null:
    outside or broken, and neither listed nor read)."""
    changed_by_session: bool = False
    """This session changed it (or, for a folder, something inside it) and it still differs
    from how the session found it (the Changes view's list)."""


class TreeValue(WireModel):
    entries: list[TreeEntry]
    truncated: bool = False
    repo: bool = False
    """The folder is in a git work tree."""
    git_withheld: Literal["untrusted-config", "no-sandbox", "failed"] | None = None
    """Why there are no git marks although it is a repository (as `files.gitStatus` says)."""


# files.read
class ReadRequest(WireModel):
    session_id: SessionId
    path: HostPath = Field(min_length=1)
    start_line: int | None = Field(default=None, ge=1)
    """1-based first line; absent: from the start (a file over 10 MB must name a range)."""
    max_lines: int | None = Field(default=None, ge=1, le=MAX_LINES)


class ImageData(WireModel):
    mime: str
    data: str
    """Base64 of the file."""


class ReadValue(WireModel):
    text: str
    start_line: int
    lines: int
    """Lines in `text`."""
    total_lines: int
    truncated: bool
    """More lines follow `text`."""
    binary: bool
    size: int = 0
    image: ImageData | None = None
    """A PNG, JPEG, GIF, WebP or SVG file (up to 5 MB), for the viewer to show."""


class FilesChanged(WireModel):
    """Paths of a watched session folder that changed on disk (debounced); "" means anything may
    have changed (many paths at once, or git's own state): read every open folder again."""

    type: Literal["files/changed"] = "files/changed"
    session_id: str
    paths: list[str]
