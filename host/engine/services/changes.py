"""The Changes view of a session: every file it changed, by any tool, as one diff from the
session's start to now, and reverting a whole file or one hunk (docs/architecture.md, "The
Changes view").

The record is the same as for `files.revertTurn` (host/engine/files/undo.py): the log's file changes
(a file tool's own `change`, the `changes` the snapshots found around a shell command) give each
path's first change; the content before it is the checkpoint kept for that turn. A revert is
checked against the content hash the view showed, so a stale view never writes; it runs holding
the agent's turn lock, goes through the undo journal (all or nothing across a crash) and is
logged as `files/restored` (cause `revert-file` or `revert-hunk`).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from contract.filechange import FileConflict, FileState, RestoredFile
from contract.files import ChangeHunk, RevertChangeValue, SessionChangesValue, SessionFileChange
from host.engine.agent.agent import Agent
from host.engine.errors import HostActionFailed, RevertConflict, RevertUnavailable
from host.engine.files import undo_journal
from host.engine.files.hunks import compare, unapply
from host.engine.files.snapshots import SnapshotError, Snapshotter
from host.engine.files.undo import LEDGER_TYPES, Ledger
from host.engine.sessions import events
from host.engine.store import SessionHeader, Store
from host.engine.store.blobs import read_roots
from host.engine.tools.base import Snapshot
from host.engine.tools.changes import snapshot, state_of
from host.engine.tools.common import ToolError, resolve_inside
from host.workers import TOOL_WORKERS

Cause = Literal["revert-file", "revert-hunk"]


@dataclass
class Base:
    """A path's state before the session's first change to it."""

    turn: int
    state: FileState | None
    turns: list[int] = field(default_factory=list)


def bases(ledger: Ledger) -> dict[str, Base]:
    """Per path a tool changed: the `before` of its first change, and every turn that changed it."""
    out: dict[str, Base] = {}
    for r in ledger.records:
        if r.turn is None:
            continue  # a restore: the session's start does not move
        base = out.setdefault(r.path, Base(r.turn, r.before))
        if r.turn not in base.turns:
            base.turns.append(r.turn)
    return out


def _read(cwd: Path, path: str) -> Snapshot | None:
    """What `path` holds now; None when it cannot be read as a file (never written over)."""
    try:
        return snapshot(cwd, resolve_inside(cwd, path), path)
    except (ToolError, OSError):
        return None


class SessionChanges:
    """The Changes view: what a session changed since it started, and reverting a file or a hunk of
    it.

    `files.sessionChanges`, `files.revertFile`, `files.revertHunk`."""

    def __init__(
        self,
        store: Store,
        snapshots: Snapshotter,
        data_dir: Path,
        header: Callable[[str], Awaitable[SessionHeader]],
        attach: Callable[[str], Awaitable[Agent]],
        default_cwd: Callable[[], str],
    ) -> None:
        self.store = store
        self.snapshots = snapshots
        self.data_dir = data_dir
        self._header = header
        self._attach = attach
        self._default_cwd = default_cwd

    def _cwd(self, header: SessionHeader) -> Path:
        return Path(header.cwd or self._default_cwd())

    async def _bases(self, session_id: str) -> dict[str, Base]:
        return bases(Ledger.read(await self.store.events_of_types(session_id, LEDGER_TYPES)))

    async def _content(self, session_id: str, path: str, base: Base) -> tuple[bytes | None] | None:
        """The kept content of `base.state` (in a 1-tuple; None inside: absent), from a file tool's
        checkpoint or a step's snapshot; None when this host kept neither (an absent start too:
        the log alone is never trusted, docs/architecture.md "Checkpoints and undo")."""
        target = base.state.sha256 if base.state is not None else None
        found = await self.store.checkpoint(session_id, base.turn, path)
        if found is not None and found.sha256 == target and (target is None or found.data is not None):
            return (found.data,)
        row = await self.snapshots.kept(session_id, base.turn, path)
        if row is None or row.sha256 != target:
            return None
        if target is None:
            return (None,)
        try:
            data = await self.snapshots.content(row)
        except SnapshotError:
            return None
        return None if data is None else (data,)

    async def list(self, session_id: str) -> SessionChangesValue:
        """Every file whose content now differs from the session's start."""
        header = await self._header(session_id)
        cwd = self._cwd(header)
        files: list[SessionFileChange] = []
        for path, base in sorted((await self._bases(session_id)).items()):
            now = await TOOL_WORKERS.run(_read, cwd, path)  # the person's files: tool work
            if now is not None and now.state == base.state:
                continue  # back as it started
            files.append(await self._describe(session_id, path, base, now))
        return SessionChangesValue(files=files)

    async def last_turn_paths(self, session_id: str) -> set[str]:
        """The paths the session's last turn that changed files changed (the review pane's
        "Last turn" scope, docs/decisions/review-pane.md)."""
        found = await self._bases(session_id)
        last = max((t for b in found.values() for t in b.turns), default=None)
        return {path for path, b in found.items() if last is not None and last in b.turns}

    async def changed_paths(self, session_id: str) -> set[str]:
        """The paths `list` would show, without their diffs (the Files pane's marks)."""
        cwd = self._cwd(await self._header(session_id))
        out: set[str] = set()
        for path, base in (await self._bases(session_id)).items():
            now = await TOOL_WORKERS.run(_read, cwd, path)
            if now is None or now.state != base.state:
                out.add(path)
        return out

    async def turns_by_path(self, session_id: str) -> tuple[Path, dict[str, tuple[int, ...]]]:
        """The session's folder and, per path it changed (relative to that folder), the turns
        that changed it, from the log alone (the commit box links a commit's turns:
        docs/decisions/commit-and-push.md)."""
        cwd = self._cwd(await self._header(session_id))
        return cwd, {path: tuple(base.turns) for path, base in (await self._bases(session_id)).items()}

    async def _describe(
        self, session_id: str, path: str, base: Base, now: Snapshot | None
    ) -> SessionFileChange:
        after = now.state if now is not None else None
        status: Literal["added", "modified", "deleted"] = (
            "added" if base.state is None else "deleted" if after is None and now is not None else "modified"
        )
        kept = await self._content(session_id, path, base)
        out = SessionFileChange(
            path=path,
            status=status,
            before=base.state,
            after=after,
            turns=base.turns,
            hunks=[],
            revertable=kept is not None,
        )
        if now is None:
            out.note = "cannot be read as a file now"
            out.revertable = False
        elif kept is None:
            out.note = "no saved copy of how it was at the session's start"
        elif now.state is not None and now.data is None:
            out.too_big, out.note = True, f"too large to compare ({now.state.size:,} bytes)"
        else:
            found = await TOOL_WORKERS.run(compare, kept[0], now.data, path)
            out.hunks = [
                ChangeHunk(id=h.id, diff=h.diff, added=h.added, removed=h.removed) for h in found.hunks
            ]
            out.binary, out.too_big, out.note = found.binary, found.too_big, found.note
        out.added = sum(h.added for h in out.hunks)
        out.removed = sum(h.removed for h in out.hunks)
        return out

    async def revert(
        self, session_id: str, path: str, current: str | None, hunk_id: str | None
    ) -> RevertChangeValue:
        """Put `path` back as the session found it (or only the hunk `hunk_id`), if it holds
        exactly `current` (the hash the view showed; None: absent)."""
        header = await self._header(session_id)
        agent = await self._attach(session_id)
        _idle(agent, session_id)
        async with agent.exclusive:
            _idle(agent, session_id)
            base = (await self._bases(session_id)).get(path)
            if base is None:
                raise RevertUnavailable(session_id, 0, "this session did not change that file")
            cwd = self._cwd(header)
            now = await TOOL_WORKERS.run(_read, cwd, path)
            if now is None:
                raise RevertConflict(session_id, [FileConflict(path=path, reason="changed")])
            if (now.state.sha256 if now.state else None) != current:
                raise RevertConflict(session_id, [FileConflict(path=path, reason="stale")])
            kept = await self._content(session_id, path, base)
            if kept is None:
                raise RevertConflict(session_id, [FileConflict(path=path, reason="not-saved")])
            await self._check_root(header, base.turn)
            target = (
                kept[0] if hunk_id is None else await self._unhunk(session_id, path, kept[0], now, hunk_id)
            )
            cause: Cause = "revert-file" if hunk_id is None else "revert-hunk"
            restored, journal = await self._write(session_id, header, path, base.turn, target, cause)
            event = agent.journal.append(events.files_restored(cause, base.turn, [restored]))
            await self.store.flush()
            await TOOL_WORKERS.run(undo_journal.finish, self.data_dir, journal)
        return RevertChangeValue(file=restored, seq=event.seq)

    async def _unhunk(
        self, session_id: str, path: str, old: bytes | None, now: Snapshot, hunk_id: str
    ) -> bytes | None:
        if now.data is None and now.state is not None:
            raise RevertConflict(session_id, [FileConflict(path=path, reason="stale")])
        found = await TOOL_WORKERS.run(compare, old, now.data, path)
        hunk = next((h for h in found.hunks if h.id == hunk_id), None)
        if hunk is None:
            raise RevertConflict(session_id, [FileConflict(path=path, reason="stale")])
        if len(found.hunks) == 1:
            return old  # the only difference: the file as it started (absent included)
        return unapply(old, now.data or b"", hunk)

    async def _check_root(self, header: SessionHeader, turn: int) -> None:
        """The folder is where it was when the turn changed files (not a symlink since)."""
        cwd = str(self._cwd(header))
        roots = await self.store.call(lambda conn: read_roots(conn, header.id, [turn]))
        real = await TOOL_WORKERS.run(os.path.realpath, cwd)
        if roots and real not in roots:
            raise RevertConflict(header.id, [FileConflict(path=cwd, reason="changed")])

    async def _write(
        self, session_id: str, header: SessionHeader, path: str, turn: int, data: bytes | None, cause: Cause
    ) -> tuple[RestoredFile, undo_journal.Journal]:
        """One file through the undo journal: staged, committed, renamed (docs/architecture.md,
        "Checkpoints and undo"); the caller logs it, then finishes the journal."""
        restored = RestoredFile(
            path=path,
            action="removed" if data is None else "restored",
            state=None if data is None else state_of(data),
        )
        journal = undo_journal.Journal(
            id=undo_journal.new_id(),
            session_id=session_id,
            turn=turn,
            cause=cause,
            root=await TOOL_WORKERS.run(os.path.realpath, str(self._cwd(header))),
            entries=[],
            at_seq={session_id: self.store.next_seq(session_id)},
            files=[restored.model_dump(mode="json", by_alias=True)],
        )
        try:
            await TOOL_WORKERS.run(undo_journal.stage, self.data_dir, journal, [(path, data)])
        except undo_journal.Escaped as exc:
            raise RevertConflict(session_id, [FileConflict(path=journal.root, reason="changed")]) from exc
        except OSError as exc:
            raise HostActionFailed(f"Reverting failed, nothing was changed: {exc.strerror or exc}") from exc
        failure = await TOOL_WORKERS.run(undo_journal.commit, self.data_dir, journal)
        if failure is not None:  # one file: not renamed, so nothing changed
            await TOOL_WORKERS.run(undo_journal.rollback, self.data_dir, journal)
            raise HostActionFailed(f"Reverting failed, nothing was changed: {failure.strerror or failure}")
        return restored, journal


def _idle(agent: Agent, session_id: str) -> None:
    if agent.running or agent.turn_open:
        raise RevertUnavailable(session_id, 0, "the agent is working; stop it or wait until it is done")
