"""Adding a worktree for a session, and taking one away again when that did not finish
(docs/decisions.md, "Worktree sessions").

`plan` decides everything first (branch, base, folder) and changes nothing; `make` runs
`git worktree add` in the sandbox — writable: the checkout's `.git` (the new branch), its
`worktrees/` folder and the folder the worktree goes in — then copies the workspace's listed
ignored files and, when asked, the checkout's uncommitted changes. `unmake` is the roll-back a
crash or a failure needs: the worktree removed, the branch deleted only when the app created it
and it still points where it started, the folder gone (it did not exist before).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from host.engine.errors import WorktreeFailed
from host.engine.files import safe_io as files
from host.engine.files.git import layout as repo_layout
from host.engine.files.git.layout import RepoLayout
from host.engine.store.worktrees import WorktreeRow
from host.engine.workspaces.worktrees.gitops import Entry, RepoGit
from host.engine.workspaces.worktrees.layout import fresh_path, inside, parent_folder

log = logging.getLogger(__name__)

UNMAKE_TRIES = 20
UNMAKE_PAUSE = 0.25
"""Rolling back a worktree a kill -9 interrupted: its folder is removed again for up to ~5 s while
the killed host's git (ending with its sandbox) may still write its last files."""
MAX_COPIED = 20_000


@dataclass(frozen=True)
class Plan:
    """A new worktree, decided and not made yet (its fields go into the journal as they are)."""

    local: str
    common: str
    path: str
    branch: str
    base: str
    start: str
    created_branch: bool

    def record(self) -> dict[str, object]:
        return dict(self.__dict__)

    @classmethod
    def of(cls, data: dict[str, object]) -> Plan:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__})  # type: ignore[arg-type]


@dataclass(frozen=True)
class Spot:
    """Where a folder lies in its repository (real paths)."""

    layout: RepoLayout
    top: str
    common: str
    sub: str
    """The folder relative to the top (`.` at the top)."""

    def inside(self, tree: str) -> str:
        """The same folder in the worktree `tree`."""
        return tree if self.sub == "." else os.path.join(tree, self.sub)


def spot(folder: str) -> Spot | None:
    """The repository `folder` lies in, or None (blocking)."""
    real = os.path.realpath(os.path.expanduser(folder))
    found = repo_layout.find(Path(real))
    if found is None:
        return None
    top = os.path.realpath(found.top)
    return Spot(found, top, os.path.realpath(found.common_dir), os.path.relpath(real, top))


def local_repository(folder: str) -> RepoLayout | None:
    """The repository `folder` lies in (blocking)."""
    return repo_layout.find(Path(folder))


def _fresh(parent: Path, name: str, top: str) -> str:
    path = os.path.realpath(fresh_path(parent, name))
    if inside(path, top):
        raise WorktreeFailed("Worktrees cannot go inside the checkout itself: pick another location.")
    return path


def _made(path: str) -> tuple[str, str] | None:
    """(real path, real git directory) of a linked worktree at `path`, or None."""
    real = os.path.realpath(path)
    found = repo_layout.find(Path(real))
    if found is None or not found.dot_git_is_file:
        return None
    return real, os.path.realpath(found.git_dir)


def worktree_writes(common: str, path: str) -> list[Path]:
    """What `git worktree add/remove` writes beyond the checkout's `.git`."""
    return [Path(common) / "worktrees", Path(path).parent]


class Maker:
    def __init__(self, data_dir: Path, git: RepoGit) -> None:
        self._data_dir = data_dir
        self._git = git

    async def plan(
        self, local: Spot, branch: str | None, base: str | None, location: str | None, fallback: str
    ) -> Plan:
        """Check and decide; WorktreeFailed with the reason in words when it cannot be done."""
        if local.layout.dot_git_is_file:
            raise WorktreeFailed(
                f"{local.top} is itself a linked worktree or a submodule: start from the main checkout."
            )
        await self._git.check(local.layout, Path(local.top))
        current = repo_layout.branch(local.layout)
        base = base or current
        if not base:
            raise WorktreeFailed("Your checkout is on no branch (a detached HEAD): pick the base branch.")
        base_commit = await self._git.commit_of(local.layout, f"refs/heads/{base}")
        if base_commit is None:
            raise WorktreeFailed(f"There is no branch {base} in this repository.")
        name = branch or fallback
        existing = await self._git.commit_of(local.layout, f"refs/heads/{name}")
        if existing is not None and branch is None:
            name = f"{fallback}-{secrets.token_hex(2)}"
            existing = await self._git.commit_of(local.layout, f"refs/heads/{name}")
        if existing is not None:
            taken = {b for _, b in await self._git.worktrees(local.layout)}
            if name in taken:
                raise WorktreeFailed(f"The branch {name} is checked out in another worktree already.")
        parent = parent_folder(self._data_dir, local.top, location)
        path = await asyncio.to_thread(_fresh, parent, name, local.top)
        return Plan(
            local=local.top,
            common=local.common,
            path=path,
            branch=name,
            base=base,
            start=existing or base_commit,
            created_branch=existing is None,
        )

    async def make(self, local: RepoLayout, plan: Plan, owned_by: str | None, now: int) -> WorktreeRow:
        """`git worktree add`; the row that records it (not stored yet)."""
        writes = worktree_writes(plan.common, plan.path)
        for folder in writes:
            await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
        # the files are written by as many workers as the machine has cores: twice as fast for
        # 10,000 small files on two (docs/decisions/worktree-sessions.md)
        args = ["-c", "checkout.workers=0", "worktree", "add", "--quiet"]
        args += (
            ["-b", plan.branch, plan.path, plan.start] if plan.created_branch else [plan.path, plan.branch]
        )
        await self._git.run(local, args, write=True, writable=writes)
        made = await asyncio.to_thread(_made, plan.path)
        if made is None:
            raise WorktreeFailed("git made no worktree there")
        return WorktreeRow(
            path=made[0],
            local=plan.local,
            common=plan.common,
            gitdir=made[1],
            branch=plan.branch,
            base=plan.base,
            start=plan.start,
            owned=True,
            created_branch=plan.created_branch,
            session_id=owned_by,
            created_at=now,
        )

    async def unmake(self, plan: Plan) -> None:
        """Roll back `make` (idempotent: every step tolerates what is already gone). A `git
        worktree add` killed half way leaves its registration locked ("initializing"): it is
        removed with a double force, unlocked, then pruned once the folder is gone."""
        local = await asyncio.to_thread(local_repository, plan.local)
        if local is not None and await asyncio.to_thread(os.path.lexists, plan.path):
            await self._quietly(local, ["worktree", "remove", "--force", "--force", plan.path], plan)
        for _ in range(UNMAKE_TRIES):  # it did not exist before; a killed checkout may still be
            await asyncio.to_thread(shutil.rmtree, plan.path, True)  # writing its last files
            if not await asyncio.to_thread(os.path.lexists, plan.path):
                break
            await asyncio.sleep(UNMAKE_PAUSE)
        if local is None:
            return
        await self._quietly(local, ["worktree", "unlock", plan.path], plan)
        await self._quietly(local, ["worktree", "prune"], plan)
        if (
            plan.created_branch
            and await self._git.commit_of(local, f"refs/heads/{plan.branch}") == plan.start
        ):
            await self._git.run(local, ["branch", "-D", plan.branch], write=True)

    async def _quietly(self, local: RepoLayout, args: list[str], plan: Plan) -> None:
        """A roll-back step that may find nothing to do (git answers 128 then)."""
        writes = worktree_writes(plan.common, plan.path)
        try:
            done = await self._git.run(local, args, write=True, writable=writes, codes=(0, 1, 128))
        except WorktreeFailed as exc:  # e.g. "Directory not empty": the steps after it finish the job
            log.info("rolling back %s: %s", plan.path, exc)
            return
        if not done.ok:
            log.info("rolling back %s: git %s: %s", plan.path, args[1], done.last_error)

    async def copy_listed(self, plan: Plan, patterns: list[str]) -> list[str]:
        """The workspace's listed ignored files into the new worktree (what is tracked is there
        already); returns what could not be copied."""
        if not patterns:
            return []
        return await asyncio.to_thread(_copy_listed, plan.local, plan.path, patterns)

    async def carry(self, plan: Plan, entries: list[Entry]) -> list[str]:
        """The checkout's uncommitted changes into the new worktree (they stay in the checkout);
        returns what could not be carried (a link, a file too large)."""
        return await asyncio.to_thread(_carry, plan.local, plan.path, entries)


def _copy_listed(local: str, path: str, patterns: list[str]) -> list[str]:
    skipped = []
    for rel in files.listed_files(local, patterns, MAX_COPIED):
        if files.kind_inside(path, rel) != "missing":
            continue
        try:
            found = files.read_inside(local, rel)
            if found is not None:
                files.write_inside(path, rel, found.data, found.executable)
        except OSError as exc:
            skipped.append(f"{rel} ({exc.strerror or exc})")
    return skipped


def _carry(local: str, path: str, entries: list[Entry]) -> list[str]:
    skipped = []
    for entry in entries:
        try:
            if entry.old is not None and "R" in entry.code:
                files.remove_inside(path, entry.old)
            found = None if entry.deleted and not entry.untracked else files.read_inside(local, entry.path)
            if found is None:
                files.remove_inside(path, entry.path)
            else:
                files.write_inside(path, entry.path, found.data, found.executable)
        except OSError as exc:
            skipped.append(f"{entry.path} ({exc.strerror or exc})")
    return skipped
