"""Putting files back all or nothing, across a crash (docs/architecture.md, "Checkpoints and undo").

A revert (or a fork's restore) first writes a journal in the data folder naming every file it
will touch and the staged copy beside each target (`.<name>.hd-revert-<id>.tmp`), then writes the
staged copies (each fsynced), then marks the journal committed — the one moment that decides —
and only then renames every staged copy over its target (and deletes what did not exist before).
The next start finishes a committed journal and rolls back one that was still staging, so a
kill -9 at any point leaves either every file put back or none, and no staged copy in the
person's folder. Every directory is opened below the session's folder as it was checked (its real
path, fixed), so a folder that became a symlink since is never written through.

A file a step replaced by a symlink or a special file is put back by the same rename (it replaces
the entry, never follows it); one replaced by a folder after the files that folder held are
deleted, the folder and its empty subfolders then removed (`rmdir`: never one that still holds
anything). Deletions go first, deepest first, so the folder is empty by then.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from host.engine.files.folder_walk import CLOEXEC, DIRECTORY, NOFOLLOW, open_parent

STAGED = ".hd-revert-"


class Escaped(OSError):
    """A directory on the way is not where the checked folder is any more."""


@dataclass
class Journal:
    """What one revert will do; saved as JSON under `<data dir>/undo-journal/`."""

    id: str
    session_id: str
    turn: int
    cause: str
    root: str
    """The session folder's real path when the revert was checked."""
    entries: list[dict[str, Any]]
    """`{path, staged, replaces?}` per file: `staged` is the name beside the target, None to
    delete it; `replaces` `directory` when an empty folder stands where the file goes."""
    at_seq: dict[str, int]
    """Each session's next seq when it started: a `files/restored` after it means logged."""
    fork_session_id: str | None = None
    files: list[dict[str, Any]] = field(default_factory=list)
    """The `RestoredFile`s to log once every file is put back (wire JSON)."""
    state: str = "staging"
    done: list[str] = field(default_factory=list)
    error: str | None = None
    rewind_at: int | None = None
    """cause `rewind`: the rewound message's seq; finishing the journal also logs
    `session/rewound`, so a crash never leaves files put back and the conversation not rewound."""

    def dump(self) -> bytes:
        return json.dumps(self.__dict__).encode()

    @classmethod
    def load(cls, raw: bytes) -> Journal:
        return cls(**json.loads(raw))


def journal_dir(data_dir: Path) -> Path:
    return data_dir / "undo-journal"


def _save(folder: Path, journal: Journal) -> None:
    """Atomic and durable: temp file, fsync, rename, fsync the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{journal.id}.{secrets.token_hex(4)}.tmp"
    with open(tmp, "wb") as fh:
        fh.write(journal.dump())
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, folder / f"{journal.id}.json")
    _fsync_dir(str(folder))


def _fsync_dir(path: str, dir_fd: int | None = None) -> None:
    fd = os.open(path, os.O_RDONLY | DIRECTORY, dir_fd=dir_fd)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _staged_name(rel: str, jid: str) -> str:
    return f".{Path(rel).name}{STAGED}{jid}.tmp"


def stage(
    data_dir: Path,
    journal: Journal,
    contents: list[tuple[str, bytes | None]],
    replacing: dict[str, str] | None = None,
) -> None:
    """Write the journal, then every staged copy beside its target; then mark it committed.
    `replacing`: targets where something else stands now (path → `symlink`, `directory`…).
    On any failure the staged copies are removed and the journal dropped (nothing changed)."""
    folder = journal_dir(data_dir)
    replacing = replacing or {}
    journal.entries = [
        {"path": p, "staged": None if d is None else _staged_name(p, journal.id)}
        | ({"replaces": "directory"} if replacing.get(p) == "directory" else {})
        for p, d in contents
    ]
    _save(folder, journal)
    try:
        for (rel, data), entry in zip(contents, journal.entries, strict=True):
            if data is not None:
                _write_staged(journal.root, rel, entry["staged"], data)
        journal.state = "commit"
        _save(folder, journal)
    except BaseException:
        rollback(data_dir, journal)
        raise


def _write_staged(root: str, rel: str, name: str, data: bytes) -> None:
    parent = open_parent(root, rel, Escaped, create=True, fixed_root=True)
    assert parent is not None
    try:
        try:
            info = os.stat(Path(rel).name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISREG(info.st_mode):
            mode = info.st_mode & 0o7777
        else:  # absent, or a symlink / folder stands there: never its mode (a link's is 0o777)
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=parent)  # a leftover of an earlier attempt
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600, dir_fd=parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
    finally:
        os.close(parent)


def commit(data_dir: Path, journal: Journal) -> OSError | None:
    """Rename every staged copy over its target, delete the removed files (idempotent: a second
    run after a crash finishes the rest). Returns the failure that stopped it, if any."""
    failure: OSError | None = None
    for entry in sorted(journal.entries, key=_order):
        rel, name = entry["path"], entry["staged"]
        if rel in journal.done:
            continue
        try:
            parent = open_parent(journal.root, rel, Escaped, fixed_root=True)
            if parent is not None:
                try:
                    if entry.get("replaces") == "directory":
                        _remove_empty(parent, Path(rel).name)
                    if name is not None:
                        with contextlib.suppress(FileNotFoundError):  # renamed before a crash
                            os.replace(name, Path(rel).name, src_dir_fd=parent, dst_dir_fd=parent)
                    else:
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(Path(rel).name, dir_fd=parent)
                    os.fsync(parent)
                except OSError:
                    if name is not None:  # this one stays as it is: its staged copy goes
                        with contextlib.suppress(OSError):
                            os.unlink(name, dir_fd=parent)
                    raise
                finally:
                    os.close(parent)
        except OSError as exc:
            failure = failure or exc
            continue
        journal.done.append(rel)
    return failure


def _order(entry: dict[str, Any]) -> tuple[int, int]:
    """Deletions first, deepest first (a folder to remove is empty by its turn), then the rest."""
    return (0 if entry["staged"] is None else 1, -len(Path(entry["path"]).parts))


def _remove_empty(parent: int, name: str) -> None:
    """Remove the folder `name` (in `parent`) and the empty folders in it, never following a
    link; OSError (ENOTEMPTY) when anything else is in it. Gone already: nothing to do."""
    try:
        fd = os.open(name, os.O_RDONLY | DIRECTORY | NOFOLLOW | CLOEXEC, dir_fd=parent)
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP):
            return  # not a folder (any more): the rename replaces what stands there
        raise
    try:
        with os.scandir(fd) as listing:
            inside = list(listing)
        for entry in inside:
            if not entry.is_dir(follow_symlinks=False):
                raise OSError(errno.ENOTEMPTY, f"{name} is not empty", name)
            _remove_empty(fd, entry.name)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def rollback(data_dir: Path, journal: Journal) -> None:
    """Remove every staged copy and the journal (the person's files were never touched)."""
    for entry in journal.entries:
        if entry["staged"] is None:
            continue
        with contextlib.suppress(OSError):
            parent = open_parent(journal.root, entry["path"], Escaped, fixed_root=True)
            if parent is not None:
                try:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(entry["staged"], dir_fd=parent)
                finally:
                    os.close(parent)
    finish(data_dir, journal)


def finish(data_dir: Path, journal: Journal) -> None:
    with contextlib.suppress(FileNotFoundError):
        (journal_dir(data_dir) / f"{journal.id}.json").unlink()


def pending(data_dir: Path) -> list[Journal]:
    """Journals a crash left behind (unreadable ones are set aside, never deleted)."""
    folder = journal_dir(data_dir)
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            found.append(Journal.load(path.read_bytes()))
        except (OSError, ValueError, TypeError):
            with contextlib.suppress(OSError):
                path.rename(path.with_suffix(".broken"))
    for stray in folder.glob(".*.tmp") if folder.is_dir() else []:
        with contextlib.suppress(OSError):
            stray.unlink()
    return found


def new_id() -> str:
    return secrets.token_hex(8)
