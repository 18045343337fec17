"""Bringing a worktree session's work home, and moving a local session into a worktree
(docs/decisions.md, "Worktree sessions": hand-off).

- **apply**: what the worktree changed since it left `base` (its commits and its uncommitted
  changes) arrives in the checkout as uncommitted changes, all or nothing: a file the checkout
  changed too (it holds neither the base's content nor the worktree's) is a conflict and nothing
  is written; the writes are staged and renamed under the revert journal.
- **merge** (`merging`): the branch's commits into `base` in the checkout.
- **remove**: the sessions in the worktree move back to the checkout, then the worktree goes
  (only one the app made) and its branch when asked (only one the app created).
- **adopt**: a local session moves to a new worktree with the checkout's uncommitted changes,
  which leave the checkout (staged under the revert journal; the index is reset for them).

Every step is in the journal before it touches anything; `recover` finishes or rolls back what
a crash interrupted.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from host.engine.errors import (
    HostActionFailed,
    WorktreeConflict,
    WorktreeDirty,
    WorktreeFailed,
    WorktreeUnmerged,
)
from host.engine.files import safe_io as files
from host.engine.files import undo_journal
from host.engine.files.git import layout as repo_layout
from host.engine.files.git.layout import RepoLayout
from host.engine.store.worktrees import WorktreeRow
from host.engine.workspaces.worktrees import journal
from host.engine.workspaces.worktrees.gitops import Entry, RepoGit
from host.engine.workspaces.worktrees.making import Maker, Plan, worktree_writes
from host.engine.workspaces.worktrees.merging import Merger, find_tree, paths_of
from host.workers import TOOL_WORKERS

log = logging.getLogger(__name__)

MAX_APPLY_BYTES = 1 << 30
"""What apply holds in memory at most (the staged writes are built from it)."""


@dataclass(frozen=True)
class Applied:
    files: list[str]
    removed: list[str]


@dataclass
class Places:
    """What the hand-off changes outside git (the service's rows and sessions)."""

    put_row: Callable[[WorktreeRow], Awaitable[None]]
    drop_row: Callable[[str], Awaitable[None]]
    move_session: Callable[[str, str], Awaitable[None]]
    """(session id, new folder): its agent is already released."""


class Handoff:
    def __init__(self, data_dir: Path, git: RepoGit, maker: Maker, places: Places) -> None:
        self._data_dir = data_dir
        self._git = git
        self._maker = maker
        self._places = places
        self.merger = Merger(data_dir, git)

    @property
    def _files_root(self) -> Path:
        return journal.root(self._data_dir)

    async def _layouts(self, row: WorktreeRow) -> tuple[RepoLayout, RepoLayout]:
        local = await asyncio.to_thread(find_tree, row.local)
        tree = await asyncio.to_thread(find_tree, row.path)
        await self._git.check(local, Path(row.local))
        return local, tree

    # ---- apply ----------------------------------------------------------------------------------

    async def apply(self, session_id: str, row: WorktreeRow) -> Applied:
        _, tree = await self._layouts(row)
        base = await self._git.text(tree, ["merge-base", f"refs/heads/{row.base}", "HEAD"], codes=(0, 1))
        if not base:
            raise WorktreeFailed(f"The branch {row.branch} shares no history with {row.base}.")
        raw = (await self._git.run(tree, ["diff", "--name-only", "-z", "--no-renames", base])).stdout
        changed = [p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p]
        raw = (await self._git.run(tree, ["ls-files", "--others", "--exclude-standard", "-z"])).stdout
        changed += [p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p]
        paths = sorted(set(changed))
        if not paths:
            return Applied([], [])
        before = await self._git.blobs(tree, base, paths)
        contents, executable, conflicts = await TOOL_WORKERS.run(_compare, row, paths, before)
        if conflicts:
            raise WorktreeConflict(session_id, conflicts, "Your checkout changed these files too")
        if not contents:
            return Applied([], [])
        await self._write(session_id, row.local, contents, "worktree-apply")
        for rel in executable:
            await TOOL_WORKERS.run(files.set_executable, row.local, rel, True)
        return Applied([p for p, d in contents if d is not None], [p for p, d in contents if d is None])

    async def _write(
        self,
        session_id: str,
        root: str,
        contents: list[tuple[str, bytes | None]],
        cause: str,
        jid: str | None = None,
    ) -> undo_journal.Journal:
        """Stage and rename `contents` into the checkout under the revert journal (all or none)."""
        record = undo_journal.Journal(
            id=jid or undo_journal.new_id(),
            session_id=session_id,
            turn=-1,
            cause=cause,
            root=root,
            entries=[],
            at_seq={},
        )
        await TOOL_WORKERS.run(undo_journal.stage, self._files_root, record, contents)
        await self._commit_files(record)
        return record

    async def _commit_files(self, record: undo_journal.Journal) -> None:
        failure = await TOOL_WORKERS.run(undo_journal.commit, self._files_root, record)
        if failure is not None:  # the journal stays: the next start finishes it
            raise HostActionFailed(
                f"Some files could not be written ({failure.strerror or failure});"
                " the rest is written at the next start."
            )
        await TOOL_WORKERS.run(undo_journal.finish, self._files_root, record)

    # ---- remove ---------------------------------------------------------------------------------

    async def remove(
        self,
        session_id: str,
        row: WorktreeRow,
        keep_branch: bool,
        force: bool,
        sessions: list[tuple[str, str]],
    ) -> tuple[bool, bool]:
        """(worktree removed, branch deleted). `sessions`: (id, folder in the checkout) of every
        session in the worktree, agents released."""
        local = await asyncio.to_thread(find_tree, row.local)
        await self._git.check(local, Path(row.local))
        tree = await asyncio.to_thread(repo_layout.find, Path(row.path))
        if row.owned and tree is not None and not force:
            dirty = await self._git.status(tree)
            if dirty:
                raise WorktreeDirty(session_id, "worktree", paths_of(dirty))
        delete_branch = not keep_branch and row.owned and row.created_branch
        if delete_branch and not force:
            ahead = await self._git.count(local, f"refs/heads/{row.base}..refs/heads/{row.branch}")
            if ahead:
                raise WorktreeUnmerged(session_id, row.branch, row.base, ahead)
        step = journal.new_step(
            "remove",
            "removing",
            row=row.__dict__,
            delete_branch=delete_branch,
            sessions=[list(s) for s in sessions],
        )
        await asyncio.to_thread(journal.save, self._data_dir, step)
        await self._finish_remove(step)
        return row.owned, delete_branch

    async def _finish_remove(self, step: journal.Step) -> None:
        row = WorktreeRow(**step.data["row"])
        for sid, folder in step.data["sessions"]:
            await self._places.move_session(sid, folder)
        local = await asyncio.to_thread(repo_layout.find, Path(row.local))
        if local is not None and row.owned:
            writes = worktree_writes(row.common, row.path)
            if await asyncio.to_thread(os.path.lexists, row.path):
                await self._git.run(
                    local,
                    ["worktree", "remove", "--force", row.path],
                    write=True,
                    writable=writes,
                    codes=(0, 128),
                )
            await self._git.run(local, ["worktree", "prune"], write=True, writable=writes[:1])
            if step.data["delete_branch"] and await self._git.commit_of(local, f"refs/heads/{row.branch}"):
                await self._git.run(local, ["branch", "-D", row.branch], write=True)
        await self._places.drop_row(row.path)
        await asyncio.to_thread(journal.done, self._data_dir, step)

    # ---- adopt ----------------------------------------------------------------------------------

    async def adopt(
        self, session_id: str, local: RepoLayout, plan: Plan, cwd: str, patterns: list[str], now: int
    ) -> WorktreeRow:
        """Move the checkout's uncommitted changes and the session (folder `cwd` in the new
        worktree; its agent released) to the worktree `plan` describes."""
        entries = await self._git.status(local)
        step = journal.new_step("adopt", "adding", plan=plan.record(), session=session_id, cwd=cwd)
        await asyncio.to_thread(journal.save, self._data_dir, step)
        try:
            row = await self._maker.make(local, plan, session_id, now)
            await self._maker.copy_listed(plan, patterns)
            skipped = await self._maker.carry(plan, entries)
            if skipped:
                raise WorktreeFailed(f"These changes cannot move: {', '.join(skipped[:5])}.")
            contents = await self._leave(local, entries)
            record = undo_journal.new_id()
            step.state, step.data["undo"], step.data["row"] = "moving", record, row.__dict__
            step.data["paths"] = sorted({p for p, _ in contents})
            await asyncio.to_thread(journal.save, self._data_dir, step)
            staged = undo_journal.Journal(
                id=record,
                session_id=session_id,
                turn=-1,
                cause="worktree-adopt",
                root=plan.local,
                entries=[],
                at_seq={},
            )
            await TOOL_WORKERS.run(undo_journal.stage, self._files_root, staged, contents)
            step.state = "committed"
            await asyncio.to_thread(journal.save, self._data_dir, step)
        except BaseException:
            if step.state != "committed":
                await asyncio.shield(self._undo_adopt(step))
            raise
        await self._finish_adopt(step)
        return row

    async def _leave(self, local: RepoLayout, entries: list[Entry]) -> list[tuple[str, bytes | None]]:
        """What each changed path of the checkout goes back to: its content at HEAD (absent:
        the file goes)."""
        paths = [e.path for e in entries] + [e.old for e in entries if e.old is not None]
        head = await self._git.blobs(local, "HEAD", paths)
        return [(p, head[p]) for p in dict.fromkeys(paths)]

    async def _finish_adopt(self, step: journal.Step) -> None:
        record = next((j for j in await self._pending_files() if j.id == step.data["undo"]), None)
        if record is not None:
            await self._commit_files(record)
        local = await asyncio.to_thread(find_tree, step.data["plan"]["local"])
        if step.data["paths"]:
            stdin = "".join(f"{p}\0" for p in step.data["paths"]).encode("utf-8", "surrogateescape")
            await self._git.run(
                local,
                ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"],
                write=True,
                stdin=stdin,
                codes=(0, 1),
            )
        await self._places.put_row(WorktreeRow(**step.data["row"]))
        await self._places.move_session(step.data["session"], step.data["cwd"])
        await asyncio.to_thread(journal.done, self._data_dir, step)

    async def _undo_adopt(self, step: journal.Step) -> None:
        record = next((j for j in await self._pending_files() if j.id == step.data.get("undo")), None)
        if record is not None:
            await TOOL_WORKERS.run(undo_journal.rollback, self._files_root, record)
        await self._maker.unmake(Plan.of(step.data["plan"]))
        await asyncio.to_thread(journal.done, self._data_dir, step)

    async def _pending_files(self) -> list[undo_journal.Journal]:
        return await TOOL_WORKERS.run(undo_journal.pending, self._files_root)

    # ---- recovery -------------------------------------------------------------------------------

    async def recover(self, step: journal.Step) -> None:
        """Finish or roll back one operation a crash interrupted (the file journals of apply
        are handled by `recover_files`)."""
        if step.op == "merge":
            await self.merger.recover(step)
        elif step.op == "remove":
            await self._finish_remove(step)
        elif step.op == "adopt":
            if step.state == "committed":
                await self._finish_adopt(step)
                return
            record = next((j for j in await self._pending_files() if j.id == step.data.get("undo")), None)
            if step.state == "moving" and record is not None and record.state == "commit":
                await self._finish_adopt(step)
            else:
                await self._undo_adopt(step)
        elif step.op == "add":
            await self._maker.unmake(Plan.of(step.data["plan"]))
            await self._places.drop_row(step.data["plan"]["path"])
            await asyncio.to_thread(journal.done, self._data_dir, step)

    async def recover_files(self) -> None:
        """Apply's staged writes: a committed journal is finished, one still staging rolled back."""
        for record in await self._pending_files():
            if record.state == "commit":
                failure = await TOOL_WORKERS.run(undo_journal.commit, self._files_root, record)
                if failure is None:
                    await TOOL_WORKERS.run(undo_journal.finish, self._files_root, record)
                else:
                    log.warning("worktree hand-off %s: still not written: %s", record.id, failure)
            else:
                await TOOL_WORKERS.run(undo_journal.rollback, self._files_root, record)


def _compare(
    row: WorktreeRow, paths: list[str], before: dict[str, bytes | None]
) -> tuple[list[tuple[str, bytes | None]], list[str], list[str]]:
    """(what to write in the checkout, which of those are executable, conflicts): a path is
    taken when the checkout still holds what the base held there, skipped when it holds the
    worktree's content already, and a conflict otherwise (or when either side is not a plain
    file: a link is never followed, nor copied)."""
    contents: list[tuple[str, bytes | None]] = []
    executable: list[str] = []
    conflicts: list[str] = []
    held = 0
    for rel in paths:
        try:
            theirs = files.read_inside(row.path, rel)
            ours = files.read_inside(row.local, rel)
        except OSError:
            conflicts.append(rel)
            continue
        held += len(theirs.data) if theirs is not None else 0
        if held > MAX_APPLY_BYTES:
            raise WorktreeFailed(
                f"The worktree's changes pass {MAX_APPLY_BYTES >> 30} GB: merge the branch instead."
            )
        want = theirs.data if theirs is not None else None
        have = ours.data if ours is not None else None
        if have == want:
            continue
        if have != before.get(rel):
            conflicts.append(rel)
            continue
        contents.append((rel, want))
        if theirs is not None and theirs.executable and not (ours and ours.executable):
            executable.append(rel)
    return contents, executable, conflicts
