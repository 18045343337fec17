"""Where a folder's git repository lives and which branch it is on, read from the files alone:
no git process runs here, so nothing the repository's configuration names can run
(docs/decisions.md, "The host's git").

git finds a repository by walking up to the nearest `.git`; a `.git` *file* (`gitdir: …`) points
at the real git directory (linked worktrees, submodules), and a git directory's `commondir` file
points at the shared one whose `config` and `hooks` then apply. All three are followed here, with
bounds, the way git follows them, so that what the host inspects is what git would read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MAX_POINTER_BYTES = 4096
"""A `.git` file, a `commondir` or a `HEAD` is one short line; more is not a pointer."""


@dataclass(frozen=True)
class RepoLayout:
    """A repository as git would find it from a folder."""

    top: Path
    """The work tree's top: the folder holding `.git`."""
    git_dir: Path
    """The git directory (`top/.git`, or where a `.git` file points)."""
    common_dir: Path
    """The shared git directory (`git_dir`, or where its `commondir` points): config, hooks."""
    dot_git_is_file: bool
    """`top/.git` is a `gitdir:` file (a linked worktree or a submodule)."""
    has_commondir: bool

    @property
    def config_files(self) -> list[Path]:
        """The repository's own configuration files git may read (which exist)."""
        found = [self.common_dir / "config", self.git_dir / "config.worktree"]
        if self.git_dir != self.common_dir:
            found.append(self.common_dir / "config.worktree")
        return [p for p in dict.fromkeys(found) if p.is_file()]


def _read_pointer(path: Path) -> str | None:
    """The first line of a small file, or None when it is missing, large or unreadable."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_POINTER_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_POINTER_BYTES:
        return None
    text = data.decode("utf-8", "replace")
    return text.splitlines()[0].strip() if text.strip() else ""


def _looks_like_git_dir(path: Path) -> bool:
    """git's own test, by files: a HEAD, and objects and refs (possibly through commondir)."""
    if not (path / "HEAD").is_file():
        return False
    if (path / "commondir").is_file():
        return True
    return (path / "objects").is_dir() and (path / "refs").is_dir()


def find(folder: Path) -> RepoLayout | None:
    """The repository `folder` lies in (itself or its nearest ancestor with a `.git`), or None."""
    try:
        here = Path(os.path.abspath(folder))
    except (OSError, ValueError):
        return None
    for candidate in (here, *here.parents):
        dot_git = candidate / ".git"
        try:
            if not os.path.lexists(dot_git):
                continue
        except (OSError, ValueError):
            return None
        layout = _at(candidate, dot_git)
        if layout is not None:
            return layout
    return None


def _at(top: Path, dot_git: Path) -> RepoLayout | None:
    if dot_git.is_file():
        line = _read_pointer(dot_git)
        if not line or not line.startswith("gitdir:"):
            return None
        target = line[len("gitdir:") :].strip()
        git_dir = Path(os.path.normpath(top / target))
        is_file = True
    elif dot_git.is_dir():
        git_dir = dot_git
        is_file = False
    else:
        return None
    if not _looks_like_git_dir(git_dir):
        return None
    common = git_dir
    pointer = git_dir / "commondir"
    has_commondir = os.path.lexists(pointer)
    if has_commondir:
        line = _read_pointer(pointer)
        if line:
            common = Path(os.path.normpath(git_dir / line))
    return RepoLayout(
        top=top, git_dir=git_dir, common_dir=common, dot_git_is_file=is_file, has_commondir=has_commondir
    )


def branch(layout: RepoLayout) -> str | None:
    """The checked-out branch from `HEAD` (None: detached, or HEAD unreadable)."""
    line = _read_pointer(layout.git_dir / "HEAD")
    if line and line.startswith("ref:"):
        ref = line[len("ref:") :].strip()
        return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else ref
    return None
