"""Snapshots around the steps that can change files (docs/architecture.md, "Snapshots").

Before such a step the workspace's shadow repository takes in whatever changed since its last
look (edits made outside the app included), so after the step the difference is exactly what the
step did. For a step whose tool does not report its own change (a shell command, a background
job's start, an MCP tool), that difference becomes the result's `changes` (the diffs the Revert
dialog shows) and host-side rows that keep each file's earlier content, so Revert and
fork-with-restore put back what the shell changed too. Then the disk budget is enforced.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import shutil
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path

from contract.filechange import FileChange, FileState
from host.engine.files.snapshots import budget, failures, rows
from host.engine.files.snapshots.after import Found, after_step
from host.engine.files.snapshots.budget import Limits, Survey
from host.engine.files.snapshots.lock import clear_stale
from host.engine.files.snapshots.repo import ShadowRepo, SnapshotError, TooLarge
from host.engine.store import Store
from host.engine.store import blobs as store_blobs
from host.engine.tools.base import ToolOutput
from host.workers import TOOL_WORKERS

log = logging.getLogger(__name__)

REPORTS_OWN_CHANGE = frozenset({"write_file", "edit_file"})
"""File tools: their result carries the change they made (`host/engine/tools/changes.py`)."""


def may_change_files(tool: object) -> bool:
    """Whether a step needs the snapshots around it: a tool says so with `changes_files` (an MCP
    tool: not marked read-only), else the tools that ask before they run (write, edit, bash)."""
    flag = getattr(tool, "changes_files", None)
    return bool(getattr(tool, "needs_approval", False)) if flag is None else bool(flag)


@dataclass(frozen=True)
class RepoUsage:
    key: str
    path: str
    bytes: int
    turns: int
    note: str | None = None
    """Why this folder's shell changes are not kept (it is too large)."""


class Snapshotter:
    """One per engine; a lock per shadow repository serialises everything that touches it."""

    def __init__(self, root: Path, store: Store, limits: Callable[[], Limits] = Limits) -> None:
        self.root = root
        self.store = store
        self.limits = limits
        self.unavailable = None if shutil.which("git") else "git is not installed"
        """Why snapshots are off (None: they are on)."""
        self._repos: dict[str, ShadowRepo] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._usage: dict[str, int] = {}
        self._states: dict[str, FileState] = {}
        self.off: dict[str, tuple[str, str, int]] = {}
        """Folders whose snapshots are off: key → (path, why, the folder budget then); a larger
        budget turns them on again."""

    # ---- the step hook (the one call a tool runner makes) ---------------------------------

    async def step(
        self,
        session_id: str,
        cwd: Path,
        turn: int,
        tool: object,
        run: Callable[[], Awaitable[ToolOutput]],
        interrupted: Callable[[list[FileChange]], None] | None = None,
    ) -> ToolOutput:
        """Where the engine runs a tool: the snapshots around it when it may change files."""
        if not may_change_files(tool):
            return await run()
        record = getattr(tool, "name", "") not in REPORTS_OWN_CHANGE
        return await self.around(session_id, cwd, turn, run, record=record, interrupted=interrupted)

    async def around(
        self,
        session_id: str,
        cwd: Path,
        turn: int,
        run: Callable[[], Awaitable[ToolOutput]],
        *,
        record: bool = True,
        interrupted: Callable[[list[FileChange]], None] | None = None,
    ) -> ToolOutput:
        """Run a step that may change files between two snapshots. `record` False: the tool
        reports its change itself (a file tool), only the snapshot before it is taken. A step
        cancelled mid-run (Stop) still gets the snapshot after it: `interrupted(changes)`. When
        a snapshot could not be taken the result's `snapshot_error` says why (the turn's card and
        Revert show it)."""
        opened = await self._before(cwd)
        if not record:
            return await run()
        if isinstance(opened, str):
            return replace(await run(), snapshot_error=opened)
        try:
            output = await run()
        except asyncio.CancelledError:
            changes, _ = await asyncio.shield(self._after_step(session_id, turn, cwd, *opened))
            if changes and interrupted is not None:
                interrupted(changes)
            raise
        changes, error = await self._after_step(session_id, turn, cwd, *opened)
        if changes:
            output = replace(output, changes=changes)
        return replace(output, snapshot_error=error) if error else output

    async def _after_step(
        self, session_id: str, turn: int, cwd: Path, key: str, repo: ShadowRepo
    ) -> tuple[list[FileChange], str | None]:
        """What the step changed, and why it is not known when the snapshot failed."""
        try:
            async with self._lock(key):
                found = await TOOL_WORKERS.run(
                    after_step, repo, cwd, self.limits().max_file_bytes, self._states
                )
                if found:
                    await self._keep(session_id, turn, key, cwd, found)
        except (SnapshotError, OSError) as exc:
            why = await TOOL_WORKERS.run(failures.describe, exc, self.root)
            log.warning("snapshot after a step failed (its changes are not kept): %s (%s)", why, exc)
            return [], why
        if found:
            await self.enforce(key)
        return [f.change for f in found], None

    async def _before(self, cwd: Path) -> tuple[str, ShadowRepo] | str:
        """The snapshot before a step: the repository to take the one after it in, or why there
        is none (the step then runs without snapshots)."""
        if self.unavailable is not None:
            return self.unavailable
        key = _key(await TOOL_WORKERS.run(os.path.realpath, cwd))
        if key in self.off:
            if self.off[key][2] >= self.limits().workspace_bytes:
                return _off(self.off[key][1])
            del self.off[key]  # the budget grew since: try again
        try:
            key, repo = await TOOL_WORKERS.run(self._open, cwd)
            async with self._lock(key):
                await TOOL_WORKERS.run(clear_stale, repo.git_dir)  # a killed git's index.lock
                repo.max_file_bytes = self.limits().max_file_bytes
                taken = await TOOL_WORKERS.run(repo.take_in)  # outside changes, or the first look
                if taken:
                    stored = await TOOL_WORKERS.run(repo.size_of, taken)
                    self._usage[key] = self._usage.get(key, 0) + stored
            if taken:
                await self.enforce(key)
            if key in self.off:
                return _off(self.off[key][1])
        except TooLarge as exc:
            await self._turn_off(key, str(cwd), str(exc))
            return _off(str(exc))
        except (SnapshotError, OSError) as exc:
            why = await TOOL_WORKERS.run(failures.describe, exc, self.root)
            log.warning("snapshot before a step failed (the step runs without one): %s (%s)", why, exc)
            return why
        return key, repo

    def _lock(self, key: str) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    def _open(self, cwd: Path) -> tuple[str, ShadowRepo]:
        real = os.path.realpath(cwd)
        if not os.path.isdir(real):
            raise SnapshotError(f"{cwd} is not a folder")
        key = _key(real)
        repo = self._repos.get(key)
        if repo is None or not (repo.git_dir / "HEAD").exists():
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)  # copies of the person's files
            repo = ShadowRepo(self.root / key / "git", Path(real), self.limits().max_file_bytes)
            repo.ensure()
            (self.root / key / "where").write_text(real)
            self._repos[key] = repo
        if key not in self._usage:
            self._usage[key] = sum(repo.objects().values())
        return key, repo

    async def _keep(self, session_id: str, turn: int, key: str, cwd: Path, found: list[Found]) -> None:
        created = time.time_ns()
        kept = [(f.path, f.change.before.sha256 if f.change.before else None, f.before_oid) for f in found]
        root = str(self._repos[key].work)  # the folder's real path, as opened

        def write(conn: sqlite3.Connection) -> None:
            rows.write(conn, session_id, turn, key, created, kept)
            store_blobs.write_root(conn, session_id, turn, root)

        await self.store.call(write)
        repo = self._repos[key]
        self._usage[key] = self._usage.get(key, 0) + repo.size_of(o for f in found for o in f.new_oids)

    # ---- reading back (revert) ------------------------------------------------------------

    async def kept(self, session_id: str, turn: int, path: str) -> rows.Kept | None:
        """The host-side row of `path`'s content before `turn` changed it, when its blob is
        still there (a pruned turn has none)."""
        row = await self.store.call(lambda conn: rows.read(conn, session_id, turn, path))
        if row is None or row.oid is None:
            return row
        repo = self._repo_by_key(row.repo)
        return row if repo is not None and repo.has(row.oid) else None

    async def content(self, row: rows.Kept) -> bytes | None:
        if row.oid is None:
            return None
        repo = self._repo_by_key(row.repo)
        if repo is None:
            raise SnapshotError("the snapshot is gone")
        found = await TOOL_WORKERS.run(repo.read, [row.oid])
        if row.oid not in found:
            raise SnapshotError("the snapshot is gone")
        return found[row.oid]

    def _repo_by_key(self, key: str) -> ShadowRepo | None:
        repo = self._repos.get(key)
        if repo is not None:
            return repo
        where = self.root / key / "where"
        try:
            work = where.read_text()
        except OSError:
            return None
        repo = ShadowRepo(self.root / key / "git", Path(work), self.limits().max_file_bytes)
        self._repos[key] = repo
        return repo

    # ---- the budget -----------------------------------------------------------------------

    def keys(self) -> list[str]:
        try:
            return sorted(p.name for p in self.root.iterdir() if (p / "where").is_file())
        except FileNotFoundError:
            return []

    async def enforce(self, key: str) -> None:
        """Prune the oldest turns when the workspace or all of them together pass the budget."""
        limits = self.limits()
        if self._usage.get(key, 0) > limits.workspace_bytes:
            await self._prune([key], int(limits.workspace_bytes * budget.HEADROOM))
            if self._usage.get(key, 0) > limits.workspace_bytes:  # the files alone: nothing to prune
                repo = self._repos.get(key)
                where = str(repo.work) if repo is not None else key
                await self._turn_off(key, where, "its files alone take more than the space per folder")
        keys = self.keys()
        for other in keys:
            if other not in self._usage:
                repo = self._repo_by_key(other)
                self._usage[other] = 0 if repo is None else await TOOL_WORKERS.run(_used, repo)
        if sum(self._usage.get(k, 0) for k in keys) > limits.total_bytes:
            await self._prune(keys, int(limits.total_bytes * budget.HEADROOM))

    async def _prune(self, keys: list[str], target: int) -> int:
        repos = {k: r for k in keys if (r := self._repo_by_key(k)) is not None}
        locks = [self._lock(k) for k in sorted(repos)]
        for lock in locks:
            await lock.acquire()
        try:
            surveys = [await TOOL_WORKERS.run(Survey.take, k, r) for k, r in repos.items()]
            units = await self.store.call(lambda conn: rows.units(conn, list(repos)))
            dropped = budget.choose(surveys, units, target)
            if dropped:
                await self.store.call(lambda conn: rows.drop(conn, dropped))
            gone = {(u.session_id, u.turn, u.repo) for u in dropped}
            kept = [u for u in units if (u.session_id, u.turn, u.repo) not in gone]
            freed = 0
            for survey in surveys:
                freed += await TOOL_WORKERS.run(budget.sweep, survey, kept)
                self._usage[survey.key] = survey.used
            if dropped:
                log.info("snapshots: pruned %d turns, freed %d bytes", len(dropped), freed)
            return freed
        finally:
            for lock in locks:
                lock.release()

    async def _turn_off(self, key: str, path: str, why: str) -> None:
        log.warning("snapshots of %s are off: %s", path, why)
        await self.free(key)
        self.off[key] = (path, why, self.limits().workspace_bytes)

    async def usage(self) -> list[RepoUsage]:
        keys = self.keys()
        units = await self.store.call(lambda conn: rows.units(conn, keys)) if keys else []
        out = []
        for key in keys:
            repo = self._repo_by_key(key)
            if repo is None:
                continue
            used = await TOOL_WORKERS.run(_used, repo)
            self._usage[key] = used
            turns = sum(1 for u in units if u.repo == key)
            out.append(RepoUsage(key, str(repo.work), used, turns))
        limit = self.limits().workspace_bytes
        for key, (path, why, then) in self.off.items():
            if then >= limit and key not in keys:
                out.append(RepoUsage(key, path, 0, 0, f"shell changes are not kept: {why}"))
        return out

    async def free(self, key: str | None = None) -> int:
        """Delete the snapshots of one workspace (or all): no earlier turn's shell changes can be
        reverted afterwards; the next step starts afresh. Returns the bytes freed."""
        freed = 0
        for k in [key] if key is not None else self.keys():
            repo = self._repo_by_key(k)
            if repo is None:
                continue
            async with self._lock(k):
                used = await TOOL_WORKERS.run(_used, repo)
                await self.store.call(lambda conn, k=k: rows.drop_repo(conn, k))  # type: ignore[misc]
                await TOOL_WORKERS.run(shutil.rmtree, self.root / k, True)
                self._repos.pop(k, None)
                self._usage.pop(k, None)
                freed += used
        return freed


def _off(why: str) -> str:
    return f"snapshots of this folder are off: {why}"


def _key(real: str) -> str:
    """A folder's repository name: its real path, hashed."""
    return hashlib.sha256(os.fsencode(real)).hexdigest()[:24]


def _used(repo: ShadowRepo) -> int:
    return sum(repo.objects().values())
