"""What the sandbox cannot forbid in advance, undone before the next sandboxed run
(docs/decisions.md, "The host's git").

A `commondir` file in a main repository's `.git` directory makes git read another directory's
configuration and hooks; git never writes one there itself. The sandbox protects one that
exists, but a missing one cannot be made in advance (git refuses an empty `commondir`), so a
command inside may create it. Before every sandboxed run, and after each command, such a file is
moved aside (renamed, never deleted: nothing anyone wrote is lost) and said.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

log = logging.getLogger(__name__)

ASIDE_SUFFIX = ".moved-aside-by-harnessdesk"


def move_planted_commondir(workspace: Path) -> str | None:
    """Move a `commondir` out of the way in `workspace`'s own `.git` directory (a real directory,
    not a linked worktree's `.git` file); the sentence to show, or None when there was none."""
    git = Path(os.path.realpath(workspace)) / ".git"
    pointer = git / "commondir"
    try:
        if git.is_symlink() or not git.is_dir() or not os.path.lexists(pointer):
            return None
        aside = git / f"commondir.{int(time.time() * 1000)}{ASIDE_SUFFIX}"
        os.rename(pointer, aside)
    except OSError as exc:
        log.warning("could not move a planted %s aside: %s", pointer, exc)
        return f"A .git/commondir file was planted in {workspace} and could not be moved aside ({exc})."
    log.warning("moved a planted %s aside to %s", pointer, aside.name)
    return (
        f"HarnessDesk moved .git/commondir aside (to .git/{aside.name}): it would make git read"
        " another directory's configuration and hooks. Do not redirect git's configuration."
    )
