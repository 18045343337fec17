"""The snapshot after a step, with what it changed (docs/architecture.md, "Snapshots"): each
changed file's earlier and new state and its diff, from the blobs the shadow repository read
back; a blob's SHA-256 is remembered so a large file's earlier content is never read again. A
file the step replaced by a symlink, a folder or a special file is a change too (`afterKind`):
its earlier content is kept, so Revert can put the file back.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from contract.filechange import FileChange, FileState
from host.engine.files.snapshots.repo import ShadowRepo
from host.engine.sandbox import secret_values
from host.engine.tools.base import Snapshot
from host.engine.tools.changes import ABSENT, MAX_DIFF_BYTES, describe, snapshot, state_of

STATE_CACHE = 50_000
"""Blob ids whose SHA-256 is remembered (a few MB)."""


@dataclass(frozen=True)
class Found:
    """One file a step changed: the earlier content's blob (None: absent), and the change."""

    path: str
    before_oid: str | None
    change: FileChange
    new_oids: tuple[str, ...]


def after_step(repo: ShadowRepo, cwd: Path, max_file_bytes: int, states: dict[str, FileState]) -> list[Found]:
    """The snapshot after a step: each changed file with its diff (blocking). `states` caches
    each blob's SHA-256, so a large file's earlier content is never read back just to hash it."""
    repo.max_file_bytes = max_file_bytes

    def compared(oid: str) -> bool:  # small enough to diff, or its hash is not known yet
        known = states.get(oid)
        return known is None or known.size <= MAX_DIFF_BYTES

    taken = repo.step(compared)
    diff = taken.diff
    if not diff:
        return []
    contents = {oid: data for oid, data in taken.contents.items() if compared(oid)}
    for oid, data in contents.items():
        if oid not in states:
            states[oid] = state_of(data)
    while len(states) > STATE_CACHE:
        states.pop(next(iter(states)))
    return found_in(diff, contents, states, cwd)


def found_in(
    diff: list[tuple[str, str | None, str | None]],
    contents: dict[str, bytes],
    states: dict[str, FileState],
    cwd: Path,
) -> list[Found]:
    """Each changed file with its diff, from the blobs read (`contents`) and the hashes known."""
    found: list[Found] = []
    for path, b, a in diff:
        if b is not None and b not in states:
            continue  # the earlier content is unreadable: nothing to put back
        before_state = states[b] if b is not None else None
        after_state: FileState | None
        replaced: Replaced | None = None
        if a is not None:
            after_state, readable = states[a], a in contents
        else:
            disk = _on_disk(cwd, path)  # dropped from the index: gone, too large, or not a file
            if isinstance(disk, bool):
                continue  # a regular file it cannot read now: nothing to compare it with
            if isinstance(disk, Replaced):
                if b is None:
                    continue  # a new symlink or folder: no file of ours was there
                after_state, readable, replaced = None, True, disk
            else:
                after_state, readable = disk, disk is None
        if readable and (b is None or b in contents):
            before = Snapshot(before_state, contents[b]) if b is not None else ABSENT
            change = describe(path, before, contents[a] if a is not None else None)
        else:
            change = _large(path, before_state, after_state)
        if replaced is not None:
            change.after_kind, change.after_link = replaced.kind, replaced.link
            change.diff_note = replaced.note
        if change.diff is not None:
            change.diff = secret_values.redact(change.diff)
        found.append(Found(path, b, change, (a,) if a else ()))
    return found


@dataclass(frozen=True)
class Replaced:
    """What a step put in a file's place: a symlink (its text), a folder, or a special file."""

    kind: Literal["symlink", "directory", "other"]
    link: str | None = None

    @property
    def note(self) -> str:
        if self.kind == "symlink":
            return f"replaced by a symlink to {self.link}"
        return "replaced by a folder" if self.kind == "directory" else "replaced by a pipe, socket or device"


def replaced_by(info: os.stat_result, where: Path) -> Replaced | None:
    """What a non-regular entry is (None: a regular file); `where` is read only for a link."""
    if stat.S_ISREG(info.st_mode):
        return None
    if stat.S_ISLNK(info.st_mode):
        try:
            return Replaced("symlink", os.fsdecode(os.readlink(where)))
        except OSError:
            return Replaced("symlink", "?")
    return Replaced("directory") if stat.S_ISDIR(info.st_mode) else Replaced("other")


def _large(path: str, before: FileState | None, after: FileState | None) -> FileChange:
    size = max(before.size if before else 0, after.size if after else 0)
    note = f"too large to compare ({size:,} bytes)"
    return FileChange(path=path, before=before, after=after, diff_note=note)


def _on_disk(cwd: Path, path: str) -> FileState | Replaced | Literal[False] | None:
    """A file the index dropped: None when gone, its state when a regular (too large) file,
    what replaced it otherwise (never followed); False when a regular file cannot be read."""
    where = cwd / path
    try:
        info = os.lstat(where)
    except (FileNotFoundError, NotADirectoryError):
        return None
    other = replaced_by(info, where)
    if other is not None:
        return other
    try:
        return snapshot(cwd, where.resolve(), path).state
    except Exception:
        return False
