"""Merging a worktree session's branch into its base in the person's checkout
(docs/decisions.md, "Worktree sessions": hand-off).

The merge is computed in objects first (`git merge-tree --write-tree`: a conflict is refused
before anything is touched; a fast-forward when it can), then the clean checkout is switched in
one journaled step (`read-tree -m -u` from the base to the merge, then `update-ref`). Refused while
either side has uncommitted changes, or when the checkout is on another branch than the base.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from host.engine.errors import WorktreeConflict, WorktreeDirty, WorktreeFailed
from host.engine.files import safe_io as files
from host.engine.files.git import layout as repo_layout
from host.engine.files.git.layout import RepoLayout
from host.engine.store.worktrees import WorktreeRow
from host.engine.workspaces.worktrees import journal
from host.engine.workspaces.worktrees.gitops import Entry, RepoGit
from host.workers import TOOL_WORKERS

SHOWN_PATHS = 200


def find_tree(folder: str) -> RepoLayout:
    found = repo_layout.find(Path(folder))
    if found is None:
        raise WorktreeFailed(f"{folder} is no longer a git work tree.")
    return found


def paths_of(entries: list[Entry]) -> list[str]:
    return [e.path for e in entries][:SHOWN_PATHS]


@dataclass(frozen=True)
class Merged:
    commit: str
    fast_forward: bool
    up_to_date: bool = False


class Merger:
    def __init__(self, data_dir: Path, git: RepoGit) -> None:
        self._data_dir = data_dir
        self._git = git

    async def _layouts(self, row: WorktreeRow) -> tuple[RepoLayout, RepoLayout]:
        local = await asyncio.to_thread(find_tree, row.local)
        tree = await asyncio.to_thread(find_tree, row.path)
        await self._git.check(local, Path(row.local))
        return local, tree

    async def merge(self, session_id: str, row: WorktreeRow) -> Merged:
        local, tree = await self._layouts(row)
        dirty = await self._git.status(tree)
        if dirty:
            raise WorktreeDirty(session_id, "worktree", paths_of(dirty))
        current = repo_layout.branch(local)
        if current != row.base:
            on = current or "no branch"
            raise WorktreeFailed(f"Your checkout is on {on}, not {row.base}: switch it to {row.base} first.")
        dirty = await self._git.status(local)
        if dirty:
            raise WorktreeDirty(session_id, "local", paths_of(dirty))
        orig = await self._git.commit_of(local, f"refs/heads/{row.base}")
        tip = await self._git.commit_of(local, f"refs/heads/{row.branch}")
        if orig is None or tip is None:
            raise WorktreeFailed(f"The branch {row.base if orig is None else row.branch} is gone.")
        if await self._ancestor(local, tip, orig):
            return Merged(orig, False, True)
        fast = await self._ancestor(local, orig, tip)
        commit = tip if fast else await self._merge_commit(session_id, local, row, orig, tip)
        step = journal.new_step(
            "merge", "switching", local=row.local, base=row.base, orig=orig, commit=commit
        )
        await asyncio.to_thread(journal.save, self._data_dir, step)
        try:
            await self._git.run(local, ["read-tree", "-m", "-u", orig, commit], write=True)
            await self._git.run(
                local,
                [
                    "update-ref",
                    "-m",
                    f"merge {row.branch} (HarnessDesk)",
                    f"refs/heads/{row.base}",
                    commit,
                    orig,
                ],
                write=True,
            )
        except WorktreeFailed:
            if not await self.recover(step, at_start=False):  # rolled back, or set aside
                raise
        await asyncio.to_thread(journal.done, self._data_dir, step)
        return Merged(commit, fast)

    async def _ancestor(self, repo: RepoLayout, older: str, newer: str) -> bool:
        done = await self._git.run(repo, ["merge-base", "--is-ancestor", older, newer], codes=(0, 1))
        return done.ok

    async def _merge_commit(
        self, session_id: str, local: RepoLayout, row: WorktreeRow, orig: str, tip: str
    ) -> str:
        done = await self._git.run(
            local,
            ["merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", orig, tip],
            write=True,
            codes=(0, 1),
        )
        fields = [f for f in done.stdout.decode("utf-8", "surrogateescape").split("\0") if f]
        if done.returncode == 1:
            raise WorktreeConflict(
                session_id, sorted(set(fields[1:])), f"{row.branch} and {row.base} change the same lines"
            )
        message = f"Merge branch '{row.branch}'"
        return await self._git.text(
            local, ["commit-tree", fields[0], "-p", orig, "-p", tip, "-m", message], write=True
        )

    async def recover(self, step: journal.Step, at_start: bool = True) -> bool:
        """Settle a switch a crash (or a failure) cut short; True when the merge is complete.
        Every file it touches must hold one side's content (the checkout was clean when it
        began): all the old side's, it never started (rolled back); some of the new side's,
        `reset --hard` to the merge completes it. Anything else is set aside, untouched. At start
        a stale `index.lock` the killed switch left is removed (never in-process: it may be the
        person's own git's)."""
        data = step.data
        local = await asyncio.to_thread(repo_layout.find, Path(data["local"]))
        if local is None or repo_layout.branch(local) != data["base"]:
            await asyncio.to_thread(
                journal.set_aside, self._data_dir, step, "the checkout moved to another branch"
            )
            return False
        ref = await self._git.commit_of(local, f"refs/heads/{data['base']}")
        if ref == data["commit"]:
            await asyncio.to_thread(journal.done, self._data_dir, step)
            return True
        if ref != data["orig"]:
            await asyncio.to_thread(journal.set_aside, self._data_dir, step, "the base branch moved since")
            return False
        raw = (await self._git.run(local, ["diff", "--name-only", "-z", data["orig"], data["commit"]])).stdout
        names = [n for n in raw.decode("utf-8", "surrogateescape").split("\0") if n]
        old = await self._git.blobs(local, data["orig"], names)
        new = await self._git.blobs(local, data["commit"], names)
        untouched = True
        for name in names:
            try:
                now = await TOOL_WORKERS.run(files.read_inside, data["local"], name)
            except OSError:
                now = None
            held = now.data if now is not None else None
            if held not in (old[name], new[name]):
                await asyncio.to_thread(journal.set_aside, self._data_dir, step, f"{name} changed since")
                return False
            untouched = untouched and held == old[name]
        if at_start:
            await asyncio.to_thread(_unlock_index, local)  # left by a killed read-tree
        if not untouched:
            await self._git.run(local, ["reset", "--hard", "--quiet", data["commit"]], write=True)
        await asyncio.to_thread(journal.done, self._data_dir, step)
        return not untouched


def _unlock_index(repo: RepoLayout) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(Path(repo.git_dir) / "index.lock")
