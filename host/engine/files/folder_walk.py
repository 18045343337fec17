"""Opening a path's folder below a root without following a link: every component is opened with
`O_NOFOLLOW` relative to the one before, so a folder swapped for a symbolic link (planted by the
agent, or appearing after a check) is refused instead of written through. The undo journal
(docs/architecture.md, "Checkpoints and undo") and the worktree hand-off (docs/decisions.md,
"Worktree sessions") both reach their files this way; each names its own error type."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from host.engine.tools.common import opened_path

DIRECTORY = getattr(os, "O_DIRECTORY", 0)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def open_parent(
    root: str, rel: str, error: type[OSError], *, create: bool = False, fixed_root: bool = False
) -> int | None:
    """A descriptor of `rel`'s folder below `root` (the caller closes it); None when a folder on
    the way is missing and `create` is False (with `create`, missing folders are made).

    `error(sentence)` is raised when `rel` is not a plain relative path, when a folder on the way
    is a link or not a folder, and, with `fixed_root`, when `root` is no longer the folder it
    was (its real path, as the caller checked it: a symlink now)."""
    parts = Path(rel).parts
    if not parts or os.path.isabs(rel) or any(p in ("..", ".", "") for p in parts):
        raise error(f"{rel}: not a path inside the folder")
    fd = os.open(root, os.O_RDONLY | DIRECTORY | CLOEXEC)
    if fixed_root and str(opened_path(fd, Path(root))) != root:
        os.close(fd)
        raise error(f"{root} is not the folder it was (a symlink now?)")
    for part in parts[:-1]:
        try:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
            nxt = os.open(part, os.O_RDONLY | DIRECTORY | NOFOLLOW | CLOEXEC, dir_fd=fd)
        except FileNotFoundError:
            os.close(fd)
            return None
        except OSError as exc:
            os.close(fd)
            raise error(f"{rel}: a folder on its path is a link or not a folder ({exc.strerror})") from exc
        os.close(fd)
        fd = nxt
    return fd
