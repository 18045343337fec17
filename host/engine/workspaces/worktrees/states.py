"""Each worktree's ahead/behind/uncommitted state (docs/decisions.md, "Worktree sessions"): kept
per worktree, asked of git at every turn end, on every `worktree.list` and after every hand-off,
and published as the `worktree` projection of every session working there when it changed.

Kept apart from the service because it is the one part that runs on its own (background
refreshes at turn ends and at start) and never changes the person's repository.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from contract.frames import SessionProjection
from contract.worktrees import WORKTREE_KEY, WorktreeState
from host.engine.errors import EngineError
from host.engine.files.git import layout as repo_layout
from host.engine.sessions.bus import Bus
from host.engine.store.worktrees import WorktreeRow
from host.engine.workspaces.worktrees.gitops import RepoGit

log = logging.getLogger(__name__)

SessionsIn = Callable[[WorktreeRow], Awaitable[list[tuple[str, str]]]]
"""(id, the same folder in the checkout) of every stored session working in a worktree."""


class WorktreeStates:
    def __init__(
        self, git: RepoGit, bus: Bus, last_seq: Callable[[str], Awaitable[int]], sessions_in: SessionsIn
    ) -> None:
        self._git = git
        self._bus = bus
        self._last_seq = last_seq
        self._sessions_in = sessions_in
        self._states: dict[str, WorktreeState] = {}
        self._refreshing: set[asyncio.Task[WorktreeState]] = set()

    def of(self, row: WorktreeRow) -> WorktreeState:
        """The state last known (all zero before git was first asked)."""
        return self._states.get(row.path) or unknown(row)

    def fresh_branch(self, row: WorktreeRow, dirty: bool) -> None:
        """A new branch at its base: its state is known without git (a first `git status` of a
        fresh tree re-reads every file, beside the session's first turn)."""
        self._states[row.path] = unknown(row).model_copy(update={"dirty": dirty})

    def forget(self, path: str) -> None:
        self._states.pop(path, None)

    async def refresh(self, row: WorktreeRow, publish: bool = True) -> WorktreeState:
        """Ask git for the worktree's ahead/behind/uncommitted state now (kept as it was when
        git may not run: an untrusted repository's configuration, a folder that is gone)."""
        state = self.of(row)
        tree = await asyncio.to_thread(repo_layout.find, Path(row.path))
        if tree is not None and tree.dot_git_is_file:
            try:
                await self._git.check(tree, Path(row.local))
                ahead, behind = await self._git.ahead_behind(tree, row.base)
                dirty = bool(await self._git.status(tree))
                state = WorktreeState(
                    path=row.path,
                    branch=row.branch,
                    base=row.base,
                    ahead=ahead,
                    behind=behind,
                    dirty=dirty,
                    owned=row.owned,
                )
            except EngineError as exc:
                log.info("worktree %s: state not refreshed: %s", row.path, exc)
        changed = self._states.get(row.path) != state
        self._states[row.path] = state
        if publish and changed:
            for sid, _ in await self._sessions_in(row):
                await self.publish(sid, state.model_dump(by_alias=True))
        return state

    def schedule(self, row: WorktreeRow) -> None:
        """`refresh` in the background (a turn's end, the start)."""
        task = asyncio.create_task(self.refresh(row), name=f"worktree-state {row.path}")
        self._refreshing.add(task)
        task.add_done_callback(self._refreshed)

    def _refreshed(self, task: asyncio.Task[WorktreeState]) -> None:
        self._refreshing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("refreshing a worktree's state failed", exc_info=task.exception())

    async def publish(self, session_id: str, value: dict[str, Any] | None) -> None:
        seq = await self._last_seq(session_id)
        self._bus.publish(
            "mux", SessionProjection(session_id=session_id, key=WORKTREE_KEY, value=value, seq=max(seq, 0))
        )

    async def close(self) -> None:
        """Stop the refreshes and wait for them: a git they started is killed and reaped before
        the engine goes (every wait has a bound: `FolderGit.run` kills on cancel)."""
        tasks = list(self._refreshing)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def unknown(row: WorktreeRow) -> WorktreeState:
    return WorktreeState(
        path=row.path, branch=row.branch, base=row.base, ahead=0, behind=0, dirty=False, owned=row.owned
    )
