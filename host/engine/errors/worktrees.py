"""Worktree sessions and their hand-off (docs/decisions.md, "Worktree sessions")."""

from __future__ import annotations

from typing import Literal

from contract.errors import (
    ReasonDetails,
    RepositoryDetails,
    WorktreeConflictDetails,
    WorktreeDirtyDetails,
    WorktreeUnmergedDetails,
)
from host.engine.errors.base import EngineError

SHOWN = 5


def _listed(paths: list[str]) -> str:
    more = f" (and {len(paths) - SHOWN} more)" if len(paths) > SHOWN else ""
    return ", ".join(paths[:SHOWN]) + more


class WorktreeConflict(EngineError[WorktreeConflictDetails]):
    """Files both sides changed: nothing was written."""

    code = "worktree-conflict"

    def __init__(self, session_id: str, paths: list[str], what: str) -> None:
        details = WorktreeConflictDetails(session_id=session_id, paths=paths)
        super().__init__(f"{what}: {_listed(paths)}. Nothing was changed.", details)


class WorktreeDirty(EngineError[WorktreeDirtyDetails]):
    code = "worktree-dirty"

    def __init__(self, session_id: str, where: Literal["worktree", "local"], paths: list[str]) -> None:
        side = "The worktree" if where == "worktree" else "Your checkout"
        details = WorktreeDirtyDetails(session_id=session_id, where=where, paths=paths)
        super().__init__(
            f"{side} has uncommitted changes ({_listed(paths)}): commit or discard them first.", details
        )


class WorktreeUnmerged(EngineError[WorktreeUnmergedDetails]):
    code = "worktree-unmerged"

    def __init__(self, session_id: str, branch: str, base: str, commits: int) -> None:
        details = WorktreeUnmergedDetails(session_id=session_id, branch=branch, base=base, commits=commits)
        what = "1 commit" if commits == 1 else f"{commits} commits"
        super().__init__(
            f"The branch {branch} has {what} that {base} does not have; they would be lost.", details
        )


class NotARepository(EngineError[RepositoryDetails]):
    code = "not-a-repository"

    def __init__(self, path: str, message: str | None = None) -> None:
        super().__init__(message or f"{path} is not inside a git repository.", RepositoryDetails(path=path))


class WorktreeUntrusted(EngineError[RepositoryDetails]):
    """The repository's configuration names programs and the folder is not trusted (or there is
    no sandbox): the host runs no git there (docs/decisions.md, "The host's git")."""

    code = "worktree-untrusted"

    def __init__(self, path: str, findings: list[str], message: str | None = None) -> None:
        shown = ", ".join(findings[:3])
        text = message or (
            f"The git configuration of {path} names programs git would run ({shown}): trust the folder"
            " first (the MCP panel's “Trust this folder”), then try again."
        )
        super().__init__(text, RepositoryDetails(path=path, findings=findings[:10]))


class WorktreeFailed(EngineError[ReasonDetails]):
    """git refused or failed; nothing was changed."""

    code = "worktree-failed"

    def __init__(self, reason: str) -> None:
        super().__init__(reason, ReasonDetails(reason=reason))
