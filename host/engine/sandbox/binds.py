"""What a worktree session adds to its sandbox: the shared git folders it may write and read
(docs/decisions/worktree-sessions.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SandboxBinds:
    """A worktree session's additions to its sandbox policy."""

    writable: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()


NO_BINDS = SandboxBinds()
