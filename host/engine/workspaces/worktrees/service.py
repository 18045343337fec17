"""`engine.worktrees`: sessions in git worktrees and their hand-off (docs/decisions.md,
"Worktree sessions"; docs/architecture.md, "Worktree sessions").

A worktree session's folder is its worktree (the same subfolder as in the checkout): its tools,
sandbox, snapshots and Changes view work there without knowing it. This service makes the
worktree (`place`, for `session.create {worktree}`), keeps each worktree's branch, ahead/behind
and uncommitted state (`states.py`: fresh at every turn end, on every `worktree.list`, after
every hand-off), hands the work back (`apply`, `merge`, `remove`, `adopt`), cleans up (worktrees of
deleted sessions, `git worktree prune` at start) and finishes at start what a crash cut short.
One operation at a time per repository.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from contract.worktrees import (
    WorktreeItem,
    WorktreeOptionsValue,
    WorktreeSettingsView,
    WorktreeSpaceValue,
    WorktreeSpec,
    WorktreeState,
)
from host.engine.agent.prompt_gates import PromptCheck, Veto
from host.engine.errors import EngineError, NotARepository, WorktreeFailed
from host.engine.files.git import layout as repo_layout
from host.engine.files.git.runner import FolderGit
from host.engine.sandbox import Confinement
from host.engine.sessions.bus import Bus
from host.engine.sessions.journal import now_ms
from host.engine.store import SessionHeader
from host.engine.store.worktrees import WorkspaceWorktreeSettings, WorktreeRow
from host.engine.workspaces.worktrees import journal
from host.engine.workspaces.worktrees.gitops import Entry, RepoGit
from host.engine.workspaces.worktrees.handoff import Applied, Handoff, Places
from host.engine.workspaces.worktrees.layout import branch_from, inside
from host.engine.workspaces.worktrees.making import Maker, Plan, Spot, spot, worktree_writes
from host.engine.workspaces.worktrees.merging import Merged
from host.engine.workspaces.worktrees.offers import Offers
from host.engine.workspaces.worktrees.rows import WorktreeRows
from host.engine.workspaces.worktrees.setup import SetupRuns
from host.engine.workspaces.worktrees.states import WorktreeStates

log = logging.getLogger(__name__)

SessionFolders = Callable[[], Awaitable[list[tuple[str, str | None]]]]
"""Every stored session's (id, folder)."""


class Worktrees:
    """Sessions in git worktrees: making them, their branch state, the hand-off (apply, merge,
    remove, adopt), clean-up."""

    def __init__(
        self,
        data_dir: Path,
        confinement: Confinement,
        rows: WorktreeRows,
        git: FolderGit,
        trusted: Callable[[Path], bool],
        bus: Bus,
        *,
        header: Callable[[str], Awaitable[SessionHeader]],
        last_seq: Callable[[str], Awaitable[int]],
        set_cwd: Callable[[str, str], Awaitable[None]],
        release: Callable[[str], Awaitable[None]],
        session_folders: SessionFolders,
        workspace_folder: Callable[[str], str],
        workspace_of_folder: Callable[[str], str | None],
        workspace_of_session: Callable[[str], str | None],
    ) -> None:
        self._data_dir = data_dir
        self.rows = rows
        self._git = RepoGit(git, trusted, lambda common: [r.path for r in rows.rows if r.common == common])
        self._bus = bus
        self._header = header
        self._last_seq = last_seq
        self._set_cwd = set_cwd
        self._release = release
        self._session_folders = session_folders
        self._workspace_folder = workspace_folder
        self._workspace_of_folder = workspace_of_folder
        self._workspace_of_session = workspace_of_session
        self._maker = Maker(data_dir, self._git)
        self._offers = Offers(rows, self._git, workspace_folder, workspace_of_folder)
        places = Places(put_row=rows.put, drop_row=self._dropped, move_session=self._move_session)
        self._handoff = Handoff(data_dir, self._git, self._maker, places)
        self.setups = SetupRuns(confinement, lambda folder: row.path if (row := rows.of(folder)) else None)
        self.states = WorktreeStates(self._git, bus, last_seq, self._sessions_in)
        self._locks: dict[str, asyncio.Lock] = {}

    # ---- the sessions' side -------------------------------------------------------------------

    def state_of(self, folder: str | None) -> dict[str, Any] | None:
        """The cached `worktree` value of a session working in `folder` (None: a local one)."""
        row = self.rows.of(folder)
        if row is None:
            return None
        return self.states.of(row).model_dump(by_alias=True)

    def home_of(self, folder: str) -> str:
        return self.rows.home_of(folder)

    async def place(self, folder: str, spec: WorktreeSpec, workspace_id: str | None, session_id: str) -> str:
        """The folder a new session works in for `session.create {worktree}`: a new worktree (or
        the existing one `spec.path` names), made and recorded before this returns."""
        local = await asyncio.to_thread(spot, folder)
        if local is None:
            raise NotARepository(folder)
        settings = self.rows.settings_of(workspace_id or self._workspace_of_folder(folder))
        entries: list[Entry] = []
        async with self._lock(local.common):
            if spec.path is not None:
                row = await self._existing(local, spec.path, spec.base, session_id)
            else:
                fallback = f"harnessdesk/{session_id[-8:].lower()}"
                plan = await self._maker.plan(local, spec.branch, spec.base, settings.location, fallback)
                entries = await self._git.status(local.layout) if spec.carry_changes else []
                row = await self._add(local.layout, plan, settings, session_id, entries)
                if settings.setup:
                    self.setups.start(
                        row.path, settings.setup, await asyncio.to_thread(self.rows.binds_for, Path(row.path))
                    )
        if spec.path is None and row.created_branch:
            self.states.fresh_branch(row, dirty=bool(entries))
        else:
            self.states.schedule(row)
        return local.inside(row.path)

    async def _add(
        self,
        local: repo_layout.RepoLayout,
        plan: Plan,
        settings: WorkspaceWorktreeSettings,
        sid: str,
        entries: list[Entry],
    ) -> WorktreeRow:
        step = journal.new_step("add", "adding", plan=plan.record(), session=sid)
        await asyncio.to_thread(journal.save, self._data_dir, step)
        try:
            row = await self._maker.make(local, plan, sid, now_ms())
            skipped = await self._maker.copy_listed(plan, settings.copy)
            skipped += await self._maker.carry(plan, entries)
            if skipped:
                log.warning("worktree %s: not copied: %s", plan.path, ", ".join(skipped[:10]))
            await self.rows.put(row)
        except BaseException:
            await asyncio.shield(self._handoff.recover(step))  # rolled back, journal gone
            raise
        await asyncio.to_thread(journal.done, self._data_dir, step)
        return row

    async def _existing(self, local: Spot, path: str, base: str | None, session_id: str) -> WorktreeRow:
        there = await asyncio.to_thread(spot, path)
        known = self.rows.at(there.top) if there is not None else None
        if known is not None:
            return known
        await self._git.check(local.layout, Path(local.top))
        listed = await self._git.worktrees(local.layout)
        reals = await asyncio.to_thread(lambda: {os.path.realpath(p): b for p, b in listed[1:]})
        if there is None or there.top not in reals or there.sub != ".":
            raise WorktreeFailed(f"{path} is not a worktree of this repository.")
        branch = reals[there.top]
        if branch is None:
            raise WorktreeFailed(f"The worktree {path} is on no branch (a detached HEAD).")
        base = base or repo_layout.branch(local.layout)
        if not base:
            raise WorktreeFailed("Pick the base branch this worktree is compared with.")
        start = await self._git.commit_of(local.layout, f"refs/heads/{branch}") or ""
        gitdir = await asyncio.to_thread(os.path.realpath, there.layout.git_dir)
        row = WorktreeRow(
            path=there.top,
            local=local.top,
            common=local.common,
            gitdir=gitdir,
            branch=branch,
            base=base,
            start=start,
            owned=False,
            created_branch=False,
            session_id=session_id,
            created_at=now_ms(),
        )
        await self.rows.put(row)
        return row

    # ---- hand-off -------------------------------------------------------------------------------

    async def _session_row(self, session_id: str) -> tuple[SessionHeader, WorktreeRow]:
        header = await self._header(session_id)
        row = self.rows.of(header.cwd)
        if row is None:
            raise NotARepository(header.cwd or "", "This session does not work in a worktree.")
        return header, row

    async def apply(self, session_id: str) -> Applied:
        _, row = await self._session_row(session_id)
        async with self._lock(row.common):
            done = await self._handoff.apply(session_id, row)
        await self.refresh(row)
        return done

    async def merge(self, session_id: str) -> Merged:
        _, row = await self._session_row(session_id)
        async with self._lock(row.common):
            done = await self._handoff.merger.merge(session_id, row)
        await self.refresh(row)
        return done

    async def remove(self, session_id: str, keep_branch: bool, force: bool) -> tuple[bool, bool, str]:
        """(worktree removed, branch deleted, the session's folder now)."""
        header, row = await self._session_row(session_id)
        async with self._lock(row.common):
            inside_it = await self._sessions_in(row)
            for sid, _ in inside_it:
                await self._release(sid)
            removed, deleted = await self._handoff.remove(session_id, row, keep_branch, force, inside_it)
        return removed, deleted, _home(header.cwd, row)

    async def adopt(self, session_id: str, branch: str | None) -> WorktreeState:
        header = await self._header(session_id)
        folder = header.cwd or ""
        if self.rows.of(folder) is not None:
            raise WorktreeFailed("This session already works in a worktree.")
        local = await asyncio.to_thread(spot, folder)
        if local is None:
            raise NotARepository(folder)
        settings = self.rows.settings_of(self._workspace_of_session(session_id))
        async with self._lock(local.common):
            fallback = branch_from(header.title or "", f"harnessdesk/{session_id[-8:].lower()}")
            plan = await self._maker.plan(local, branch, None, settings.location, fallback)
            await self._release(session_id)
            cwd = local.inside(plan.path)
            row = await self._handoff.adopt(session_id, local.layout, plan, cwd, settings.copy, now_ms())
        return await self.refresh(row)

    async def _sessions_in(self, row: WorktreeRow) -> list[tuple[str, str]]:
        """(id, the same folder in the checkout) of every stored session working in `row`."""
        return [
            (sid, _home(cwd, row))
            for sid, cwd in await self._session_folders()
            if cwd and inside(cwd, row.path)
        ]

    async def _move_session(self, session_id: str, folder: str) -> None:
        await self._set_cwd(session_id, folder)
        await self.states.publish(session_id, self.state_of(folder))

    async def _dropped(self, path: str) -> None:
        await self.rows.drop(path)
        self.states.forget(path)

    # ---- status ---------------------------------------------------------------------------------

    async def list(self, workspace_id: str | None) -> list[WorktreeItem]:
        """Every session in a worktree (of one workspace), its state fresh."""
        found: list[WorktreeItem] = []
        fresh: dict[str, WorktreeState] = {}
        for sid, cwd in await self._session_folders():
            row = self.rows.of(cwd)
            if row is None or (workspace_id is not None and self._workspace_of_session(sid) != workspace_id):
                continue
            if row.path not in fresh:
                fresh[row.path] = await self.refresh(row, publish=False)
            found.append(WorktreeItem(session_id=sid, **fresh[row.path].model_dump()))
        return found

    async def refresh(self, row: WorktreeRow, publish: bool = True) -> WorktreeState:
        return await self.states.refresh(row, publish)

    def turn_ended(self, folder: Path) -> None:
        """A turn ended in `folder`: refresh its worktree's state in the background."""
        row = self.rows.of(str(folder))
        if row is not None:
            self.states.schedule(row)

    # ---- what New session offers, settings, space (`offers`) -----------------------------------

    async def options(self, workspace_id: str | None, cwd: str | None) -> WorktreeOptionsValue:
        return await self._offers.options(workspace_id, cwd)

    async def configure(self, workspace_id: str, changes: dict[str, Any]) -> WorktreeSettingsView:
        return await self._offers.configure(workspace_id, changes)

    async def space_used(self) -> WorktreeSpaceValue:
        return await self._offers.space_used()

    # ---- start, clean-up, shutdown --------------------------------------------------------------

    async def recover(self) -> None:
        """At start: what a crash interrupted finished or rolled back; `git worktree prune` in
        every repository the app has worktrees of; worktrees no session works in any more (a
        deleted one, a new one whose session was never written) removed."""
        await self._handoff.recover_files()
        for step in await asyncio.to_thread(journal.pending, self._data_dir):
            try:
                await self._handoff.recover(step)
            except Exception as exc:
                log.error("worktree journal %s (%s) could not be finished: %s", step.id, step.op, exc)
                await asyncio.to_thread(journal.set_aside, self._data_dir, step, str(exc))
        for local in {r.local: r for r in self.rows.rows}.values():
            await self._prune(local)
        folders = [cwd for _, cwd in await self._session_folders() if cwd]
        for row in list(self.rows.rows):
            if not any(inside(f, row.path) for f in folders):
                await self._remove_unused(row)
        for row in self.rows.rows:  # the rows' ahead/behind/uncommitted, in the background
            self.states.schedule(row)

    async def _prune(self, row: WorktreeRow) -> None:
        local = await asyncio.to_thread(repo_layout.find, Path(row.local))
        if local is None:
            return
        try:
            await self._git.check(local, Path(row.local))
            await self._git.run(
                local, ["worktree", "prune"], write=True, writable=worktree_writes(row.common, row.path)[:1]
            )
        except EngineError as exc:
            log.info("git worktree prune in %s: %s", row.local, exc)

    async def session_deleted(self, folder: str | None, keep_branch: bool = True) -> None:
        """A session was deleted (or never made: `keep_branch` False, its untouched branch goes
        too): its worktree goes when no other session works in it."""
        row = self.rows.of(folder)
        if row is None:
            return
        if any(cwd and inside(cwd, row.path) for _, cwd in await self._session_folders()):
            return
        async with self._lock(row.common):
            await self._remove_unused(row, force=True, untouched_branch=not keep_branch)

    async def _remove_unused(
        self, row: WorktreeRow, force: bool = False, untouched_branch: bool = True
    ) -> None:
        """A worktree nobody works in: the app's own is removed (not when it holds uncommitted
        changes, unless `force`: its session was deleted), with its branch when
        `untouched_branch` and the app made it and nothing was committed on it; a person's own
        stays, only forgotten."""
        local = await asyncio.to_thread(repo_layout.find, Path(row.local))
        exists = await asyncio.to_thread(os.path.lexists, row.path)
        try:
            if row.owned and local is not None and exists:
                await self._git.check(local, Path(row.local))
                args = ["worktree", "remove", *(["--force"] if force else []), row.path]
                await self._git.run(local, args, write=True, writable=worktree_writes(row.common, row.path))
                start = await self._git.commit_of(local, f"refs/heads/{row.branch}")
                if row.created_branch and untouched_branch and start == row.start:
                    await self._git.run(local, ["branch", "-D", row.branch], write=True)
        except EngineError as exc:
            log.warning("worktree %s was left in place: %s", row.path, exc)
            return
        await self._dropped(row.path)

    async def gate(self, check: PromptCheck) -> Veto | None:
        return await self.setups.gate(check)

    async def close(self) -> None:
        await self.states.close()
        await self.setups.close()

    def _lock(self, common: str) -> asyncio.Lock:
        return self._locks.setdefault(common, asyncio.Lock())


def _home(folder: str | None, row: WorktreeRow) -> str:
    if not folder:
        return row.local
    rest = folder[len(row.path) :].lstrip("/") if inside(folder, row.path) else ""
    return os.path.join(row.local, rest) if rest else row.local
