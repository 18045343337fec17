"""What a file tool changes: the file's content before (a checkpoint), after, and the unified diff
between them (docs/architecture.md, "Checkpoints and undo").

The diff is computed here, on the host, because only the host knows what the file held: the
approval card shows it before the write (a preview), the tool card after it (the `change` of the
tool result), and neither ever gets the file's whole old content.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
from pathlib import Path

from contract.filechange import FileChange, FileState
from host.engine.tools.base import Snapshot
from host.engine.tools.common import ToolError, open_inside

MAX_CHECKPOINT_BYTES = 20_000_000
"""Larger files are hashed (a revert still notices a later change) but their content is not kept."""
MAX_DIFF_BYTES = 2_000_000
MAX_DIFF_LINES = 50_000
MAX_DIFF_CHARS = 200_000
"""A longer diff is cut at a line boundary (the card says so)."""
CONTEXT_LINES = 3


ABSENT = Snapshot(None)


def state_of(data: bytes) -> FileState:
    return FileState(sha256=hashlib.sha256(data).hexdigest(), size=len(data))


def snapshot(cwd: Path, path: Path, shown: str) -> Snapshot:
    """What `path` (resolved inside `cwd`) holds now. A pipe, device or socket is refused
    (NOT_A_FILE), so a tool never replaces one it could not checkpoint."""
    try:
        fd = open_inside(cwd, path)
    except FileNotFoundError:
        return ABSENT
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if stat.S_ISDIR(info.st_mode):
            raise ToolError(f"{shown} is a directory.", "IS_DIRECTORY")
        if not stat.S_ISREG(info.st_mode):
            what = "is not a regular file (a pipe, device or socket); not written."
            raise ToolError(f"{shown} {what}", "NOT_A_FILE")
        os.set_blocking(fh.fileno(), True)
        if info.st_size <= MAX_CHECKPOINT_BYTES:
            data = fh.read()
            return Snapshot(state_of(data), data)
        digest = hashlib.sha256()
        size = 0
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
        return Snapshot(FileState(sha256=digest.hexdigest(), size=size))


def describe(shown: str, before: Snapshot, after: bytes | None) -> FileChange:
    """The change from `before` to `after` (None: removed) with its unified diff when showable."""
    after_state = None if after is None else state_of(after)
    change = FileChange(path=shown, before=before.state, after=after_state)
    if before.state is not None and before.data is None:
        change.diff_note = f"too large to compare ({before.state.size:,} bytes before)"
        return change
    old = before.data or b""
    new = after or b""
    if b"\x00" in old[:8192] or b"\x00" in new[:8192]:
        change.diff_note = "binary file"
        return change
    if max(len(old), len(new)) > MAX_DIFF_BYTES:
        change.diff_note = f"too large to compare ({max(len(old), len(new)):,} bytes)"
        return change
    a = old.decode("utf-8", errors="replace").splitlines()
    b = new.decode("utf-8", errors="replace").splitlines()
    if max(len(a), len(b)) > MAX_DIFF_LINES:
        change.diff_note = f"too many lines to compare ({max(len(a), len(b)):,})"
        return change
    source = "/dev/null" if before.state is None else f"a/{shown}"
    target = "/dev/null" if after is None else f"b/{shown}"
    lines = list(difflib.unified_diff(a, b, source, target, n=CONTEXT_LINES, lineterm=""))
    change.added = sum(1 for line in lines[2:] if line.startswith("+"))
    change.removed = sum(1 for line in lines[2:] if line.startswith("-"))
    if not lines:
        change.diff_note = "no changes" if before.state is not None else "empty file"
        return change
    text = "\n".join(lines)
    if len(text) > MAX_DIFF_CHARS:
        cut = text.rfind("\n", 0, MAX_DIFF_CHARS)
        text = text[: max(cut, 0)]
        change.diff_note = f"diff cut at {MAX_DIFF_CHARS:,} characters"
    change.diff = text
    return change
