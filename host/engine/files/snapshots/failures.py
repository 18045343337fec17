"""Why a snapshot could not be taken, in words for the turn's card and for Revert
(docs/decisions.md, "Snapshots: a stale lock, a failed snapshot, a file replaced by a link").

A full disk is named: which folder could not be written, and the mount it is on, so the person
knows what to free; git's own last line is kept for the rest.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from host.engine.files.snapshots.lock import LockHeld
from host.engine.files.snapshots.repo import SnapshotError, TooLarge

FULL_BELOW = 1 << 20
"""Less free space than this after a failure: the failure is the full disk."""
DISK_FULL_WORDS = ("No space left on device", "insufficient space", "Disk quota exceeded")


def mount_of(path: Path) -> Path:
    """The mount point that holds `path` (the nearest folder above it on another device)."""
    here = Path(os.path.realpath(path))
    while not here.exists() and here != here.parent:
        here = here.parent
    try:
        device = here.stat().st_dev
        while here != here.parent and here.parent.stat().st_dev == device:
            here = here.parent
    except OSError:
        pass
    return here


def disk_full(where: Path) -> str:
    """The sentence for a full disk under `where`."""
    mount = mount_of(where)
    try:
        free = f"{shutil.disk_usage(mount).free:,} bytes free"
    except OSError:
        free = "its free space unknown"
    on = "" if mount == Path(os.path.realpath(where)) else f" (the disk mounted at {mount})"
    return f"the disk holding {where}{on} is full ({free})"


def describe(exc: BaseException, where: Path) -> str:
    """Why the snapshot under `where` (the snapshots folder) failed, in one phrase."""
    if isinstance(exc, (LockHeld, TooLarge)):
        return str(exc)
    text = str(exc)
    full = isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)
    full = full or any(w in text for w in DISK_FULL_WORDS)
    if not full:  # git's words for a full disk vary ("unable to write new index file")
        try:
            full = shutil.disk_usage(mount_of(where)).free < FULL_BELOW
        except OSError:
            pass
    if full:
        return disk_full(where)
    if isinstance(exc, OSError) and not isinstance(exc, SnapshotError):
        return f"the snapshot could not be written ({exc.strerror or exc})"
    return f"git failed ({text})"
