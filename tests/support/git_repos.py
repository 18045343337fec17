"""Real git repositories for the worktree tests (docs/decisions.md, "Worktree sessions"): made
under /var/tmp (the sandbox hides /tmp), with an identity in the repository's own configuration
(a merge commit needs one; `user.*` names no program, so the host's git runs there before
trust)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid")
"""A committer for the test's own commits, on the command line (the repository's configuration
stays as the test made it)."""


def git(folder: Path, *args: str, check: bool = True, config: Sequence[str] = ()) -> str:
    """`git [config] args` in `folder` (the test's own git, not the host's); its stdout, stripped.
    The one git helper of the tests: `config` adds `-c` options (`IDENTITY`) before `args`."""
    done = subprocess.run(
        ["git", "-C", str(folder), *config, *args], check=check, capture_output=True, text=True, timeout=120
    )
    return done.stdout.strip()


def make_repo(folder: Path, files: dict[str, str] | None = None, branch: str = "main") -> Path:
    """A repository with one commit of `files` (default: a.txt and b.txt) on `branch`."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", branch)
    git(folder, "config", "user.name", "Test Person")
    git(folder, "config", "user.email", "person@example.invalid")
    for name, content in (files or {"a.txt": "one\ntwo\nthree\n", "b.txt": "bee\n"}).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "start")
    return folder


def commit_all(folder: Path, message: str) -> str:
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", message)
    return git(folder, "rev-parse", "HEAD")


def worktree_paths(repo: Path) -> list[str]:
    """`git worktree list` of `repo`, the main checkout left out."""
    out = git(repo, "worktree", "list", "--porcelain")
    return [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("worktree ")][1:]


def branches(repo: Path) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").splitlines()


@pytest.fixture
def place() -> Iterator[Path]:
    """A fresh folder under /var/tmp, removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="harnessdesk-wt-", dir="/var/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
