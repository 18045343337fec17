"""The snapshot after a step, with what it changed (docs/architecture.md, "Snapshots"): each
changed file's earlier and new state and its diff, from the blobs the shadow repository read
back; a blob's SHA-256 is remembered so a large file's earlier content is never read again.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from contract.filechange import FileChange, FileState
from host.engine import secret_values
from host.engine.snapshots.repo import ShadowRepo
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
        if a is not None:
            after_state, readable = states[a], a in contents
        else:
            disk = _on_disk(cwd, path)  # dropped from the index: gone, or too large now
            if isinstance(disk, bool):
                continue  # now a symlink, a device…: not a kind of file undo puts back
            after_state, readable = disk, disk is None
        if readable and (b is None or b in contents):
            before = Snapshot(before_state, contents[b]) if b is not None else ABSENT
            change = describe(path, before, contents[a] if a is not None else None)
        else:
            change = _large(path, before_state, after_state)
        if change.diff is not None:
            change.diff = secret_values.redact(change.diff)
        found.append(Found(path, b, change, (a,) if a else ()))
    return found


def _large(path: str, before: FileState | None, after: FileState | None) -> FileChange:
    size = max(before.size if before else 0, after.size if after else 0)
    note = f"too large to compare ({size:,} bytes)"
    return FileChange(path=path, before=before, after=after, diff_note=note)


def _on_disk(cwd: Path, path: str) -> FileState | bool | None:
    """A file the index dropped: None when gone, its state when a regular (too large) file,
    False when something else."""
    try:
        info = os.lstat(cwd / path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return False
    try:
        return snapshot(cwd, (cwd / path).resolve(), path).state
    except Exception:
        return False
