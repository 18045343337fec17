"""Where a worktree goes, and what a worktree session's sandbox binds (docs/decisions.md,
"Worktree sessions").

A worktree goes outside the person's working tree — under the data folder by default
(`worktrees/<repository>-<hash>/<branch>`), or in the folder a workspace names (a repository on
another disk wants its worktrees beside it) — and never inside the checkout: that would show as
untracked files there, and hiding it would mean editing the person's `.gitignore`.

A worktree's git directory is `<shared .git>/worktrees/<name>`; git run in the worktree writes
objects, refs and logs into the shared directory and its index and HEAD into its own. The
session's sandbox binds exactly those writable — `objects/`, `refs/`, `logs/`, its own
`worktrees/<name>/` — and keeps the pointers in it (`commondir`, `gitdir`, `config.worktree`)
read-only over them; the shared `config`, `hooks/`, `info/`, the checkout and every other
worktree stay read-only (the root is).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from host.engine.sandbox.binds import NO_BINDS, SandboxBinds
from host.engine.store.worktrees import WorktreeRow

DATA_FOLDER = "worktrees"
POINTERS = ("commondir", "gitdir", "config.worktree")
SHARED_WRITABLE = ("objects", "refs", "logs")


def slug(branch: str) -> str:
    """A folder name for a branch (`fix/login` → `fix-login`)."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", branch).strip("-.") or "worktree"
    return cleaned[:80]


def branch_from(text: str, fallback: str) -> str:
    """A branch name from a sentence (a title, a first prompt): its first words, lower case."""
    words = re.findall(r"[A-Za-z0-9]+", text.lower())[:6]
    name = "-".join(words)[:48].strip("-")
    return name or fallback


def parent_folder(data_dir: Path, local: str, location: str | None) -> Path:
    """The folder a repository's worktrees go in."""
    if location:
        return Path(location)
    name = slug(os.path.basename(local.rstrip("/")) or "repository")
    digest = hashlib.sha256(local.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return data_dir / DATA_FOLDER / f"{name}-{digest}"


def fresh_path(parent: Path, branch: str) -> Path:
    """A folder below `parent` that does not exist yet, named after the branch."""
    base = slug(branch)
    candidate = parent / base
    n = 2
    while os.path.lexists(candidate):
        candidate = parent / f"{base}-{n}"
        n += 1
    return candidate


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def binds(row: WorktreeRow) -> SandboxBinds:
    """What a session working in `row` needs bound beyond its folder (blocking: it stats).
    The worktree's `config.worktree` is made empty when missing, so that nothing can plant one
    (git reads it when the shared configuration turns `extensions.worktreeConfig` on)."""
    gitdir = Path(row.gitdir)
    common = Path(row.common)
    if not gitdir.is_dir() or not inside(str(gitdir), str(common / "worktrees")):
        return NO_BINDS
    config = gitdir / "config.worktree"
    if not os.path.lexists(config):
        try:
            config.touch(0o644)
        except OSError:
            return NO_BINDS  # unprotectable: the session runs without git's write access
    writable = tuple(
        p for p in (common / name for name in SHARED_WRITABLE) if p.is_dir() and not p.is_symlink()
    )
    read_only = tuple(gitdir / name for name in POINTERS if (gitdir / name).exists())
    return SandboxBinds(writable=(*writable, gitdir), read_only=read_only)


def home_of(path: str, rows: list[WorktreeRow]) -> str:
    """The checkout folder that corresponds to `path`: a folder inside a known worktree maps to
    the same place in the person's checkout (a workspace lists its worktree sessions)."""
    for row in rows:
        if inside(path, row.path):
            rest = path[len(row.path) :].lstrip("/")
            return os.path.join(row.local, rest) if rest else row.local
    return path


def row_of(path: str, rows: list[WorktreeRow]) -> WorktreeRow | None:
    for row in rows:
        if inside(path, row.path):
            return row
    return None
