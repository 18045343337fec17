"""A stale `index.lock` in a shadow repository, cleared on the next step (docs/decisions.md,
"Snapshots: a stale lock, a failed snapshot, a file replaced by a link").

git writes the new index into `index.lock` and renames it over `index`; a `git update-index`
killed on the way (OOM, power cut, its process group killed) leaves the lock behind, and every
later `update-index` fails on it. A git that is alive holds the lock file open from creating it
until the rename, so the lock is stale exactly when no process holds it open: the next step looks
through `/proc/*/fd` and removes it only then. Our own git of that repository cannot be running
meanwhile (the `Snapshotter` holds the repository's lock around every git that writes it), and
any other one — a git a killed host left running, which still finishes its write — is seen by
the scan, so the lock is never pulled from under a live git.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from host.engine.files.snapshots.repo import SnapshotError

log = logging.getLogger(__name__)

LOCK = "index.lock"
PROC = Path("/proc")


class LockHeld(SnapshotError):
    """A live process holds the repository's `index.lock`: this step runs without a snapshot."""


def holders(lock: Path, proc: Path = PROC) -> list[int]:
    """The processes that hold `lock` open (those this process may look into: ours, or all of
    them as root)."""
    wanted = os.path.realpath(lock)
    found: list[int] = []
    try:
        pids = [int(e.name) for e in os.scandir(proc) if e.name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        fds = proc / str(pid) / "fd"
        try:
            names = os.listdir(fds)
        except OSError:  # gone, or not ours to look into
            continue
        for name in names:
            with contextlib.suppress(OSError):
                if os.readlink(fds / name) == wanted:
                    found.append(pid)
                    break
    return found


def clear_stale(git_dir: Path, proc: Path = PROC) -> bool:
    """Remove the repository's `index.lock` when no process holds it open; True when one was
    removed. LockHeld when a live process holds it (the step then runs without a snapshot)."""
    lock = git_dir / LOCK
    if not lock.exists():
        return False
    if not proc.is_dir():
        raise LockHeld(f"{lock} is there and this system cannot tell whether a git still writes it")
    pids = holders(lock, proc)
    if pids:
        raise LockHeld(f"another git (pid {pids[0]}) is still writing the snapshot repository {git_dir}")
    with contextlib.suppress(FileNotFoundError):
        lock.unlink()
    log.warning("snapshots: removed a stale %s that a killed git left (no process held it)", lock)
    return True
