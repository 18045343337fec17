"""Files that move between a checkout and a worktree, read and written without following links
(docs/decisions.md, "Worktree sessions").

The agent writes freely in its worktree, so a name there may be a symbolic link planted to point
at a secret (`.env -> ~/.ssh/id_ed25519`): every folder on a path is opened below the root's real
path with `O_NOFOLLOW`, and only regular files are read. A link, a folder where a file was, a
device: `NotRegular`, which the hand-off reports instead of copying.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from host.engine.files.folder_walk import CLOEXEC, NOFOLLOW, open_parent

NONBLOCK = getattr(os, "O_NONBLOCK", 0)
MAX_FILE = 512 * 1024 * 1024
"""A file larger than this is not moved (it would be read into memory)."""


class NotRegular(OSError):
    """The path is not a regular file reached without a link."""


@dataclass(frozen=True)
class FileData:
    data: bytes
    executable: bool


def read_inside(root: str, rel: str) -> FileData | None:
    """Regular file `rel` below `root`, or None when it does not exist; NotRegular otherwise."""
    parent = open_parent(root, rel, NotRegular)
    if parent is None:
        return None
    try:
        try:
            fd = os.open(Path(rel).name, os.O_RDONLY | NOFOLLOW | NONBLOCK | CLOEXEC, dir_fd=parent)
        except FileNotFoundError:
            return None
        except OSError as exc:  # ELOOP: a link
            raise NotRegular(f"{rel} is a link or cannot be read") from exc
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise NotRegular(f"{rel} is not a regular file")
            if info.st_size > MAX_FILE:
                raise NotRegular(f"{rel} is larger than {MAX_FILE >> 20} MB")
            return FileData(fh.read(), bool(info.st_mode & 0o100))
    finally:
        os.close(parent)


def kind_inside(root: str, rel: str) -> str:
    """`file`, `dir`, `missing` or `other` (a link, a device) for `rel` below `root`."""
    try:
        parent = open_parent(root, rel, NotRegular)
    except NotRegular:
        return "other"
    if parent is None:
        return "missing"
    try:
        info = os.stat(Path(rel).name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return "missing"
    finally:
        os.close(parent)
    if stat.S_ISREG(info.st_mode):
        return "file"
    return "dir" if stat.S_ISDIR(info.st_mode) else "other"


def write_inside(root: str, rel: str, data: bytes, executable: bool = False) -> None:
    """Write `rel` below `root` (our own worktree) whole: a temporary name, then a rename; the
    folders on its way are made, none followed through a link."""
    parent = open_parent(root, rel, NotRegular, create=True)
    assert parent is not None
    name = Path(rel).name
    tmp = f".{name}.hd-{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600, dir_fd=parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            os.fchmod(fh.fileno(), 0o755 if executable else 0o644)
        os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=parent)
        raise
    finally:
        os.close(parent)


def remove_inside(root: str, rel: str) -> None:
    """Delete file `rel` below `root` (nothing when it is missing)."""
    parent = open_parent(root, rel, NotRegular)
    if parent is None:
        return
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(Path(rel).name, dir_fd=parent)
    finally:
        os.close(parent)


def set_executable(root: str, rel: str, executable: bool) -> None:
    """The owner's execute bit of a file the hand-off wrote (the journal keeps the content only)."""
    parent = open_parent(root, rel, NotRegular)
    if parent is None:
        return
    try:
        fd = os.open(Path(rel).name, os.O_RDONLY | NOFOLLOW | CLOEXEC, dir_fd=parent)
    except OSError:
        os.close(parent)
        return
    try:
        mode = os.fstat(fd).st_mode & 0o7777
        wanted = mode | ((mode & 0o444) >> 2) if executable else mode & ~0o111
        if wanted != mode:
            os.fchmod(fd, wanted)
    finally:
        os.close(fd)
        os.close(parent)


def listed_files(root: str, patterns: list[str], limit: int) -> list[str]:
    """The regular files below `root` that the workspace's copy list names (a path, a folder for
    every file below it, or a glob), never through a link; at most `limit`."""
    found: list[str] = []
    for pattern in (p.strip().strip("/") for p in patterns):
        if not pattern:
            continue
        if not any(c in pattern for c in "*?["):
            kind = kind_inside(root, pattern)
            if kind == "file":
                found.append(pattern)
            elif kind == "dir":
                found += [
                    f"{pattern}/{rel}" for rel, _ in _files_below(os.path.join(root, pattern), limit * 4)
                ]
        else:
            found += [rel for rel, _ in _files_below(root, limit * 4) if fnmatch.fnmatchcase(rel, pattern)]
        if len(found) >= limit:
            break
    return list(dict.fromkeys(found))[:limit]


def _files_below(root: str, limit: int) -> Iterator[tuple[str, int]]:
    """(relative path, size) of the regular files below `root`, `.git` skipped, links not
    followed; at most `limit` entries are looked at."""
    seen = 0
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(root, rel_dir) if rel_dir else root))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > limit:
                return
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != ".git":
                        stack.append(rel)
                elif entry.is_file(follow_symlinks=False):
                    yield rel, entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue


def disk_use(root: str) -> int:
    """Bytes a folder takes on disk (allocated blocks, links not followed)."""
    total = 0
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            total += getattr(info, "st_blocks", 0) * 512 or info.st_size
            if stat.S_ISDIR(info.st_mode):
                stack.append(entry.path)
    return total
