"""`engine.files`: undoing the agent's file changes (revert a turn, restore the files a fork
leaves behind: docs/architecture.md, "Checkpoints and undo"), the folder's git status and the
snapshots' disk use.

Both run with the session's agent held between turns (its turn lock), so no tool writes while
files are put back; a session that is working is refused. Either everything planned is written
or, when a file blocks it, nothing (`revert-conflict`); the writes go through a journal
(`host/engine/files/undo_journal.py`) so a crash cannot leave half of them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal, cast

from contract.content import Message, TextBlock
from contract.filechange import FileConflict, RestoredFile
from contract.files import FolderSpace, GitStatusValue, RestorePreviewValue, RevertTurnValue, SpaceUsedValue
from contract.namespaces import UNDO, UndoSection
from contract.sessions import RewindValue
from host.engine.agent.agent import Agent
from host.engine.errors import (
    EngineError,
    ForkUnavailable,
    HostActionFailed,
    RevertConflict,
    RevertUnavailable,
    RewindUnavailable,
    SessionNotFound,
)
from host.engine.files import undo_journal
from host.engine.files.git.runner import FolderGit
from host.engine.files.git.status import git_status
from host.engine.files.snapshots import Limits, SnapshotError, Snapshotter
from host.engine.files.undo import LEDGER_TYPES, Ledger, Plan, Want, plan
from host.engine.sessions import events
from host.engine.sessions.lookup import Header
from host.engine.settings.configuration import ConfigPlane
from host.engine.store import SessionHeader, Store
from host.engine.store.blobs import read_roots
from host.workers import TOOL_WORKERS

log = logging.getLogger(__name__)

Cause = Literal["revert", "fork", "revert-file", "revert-hunk", "rewind"]
CAUSES = ("revert", "fork", "revert-file", "revert-hunk", "rewind")
"""A journal's cause as `files/restored` logs it (the Changes view's reverts too)."""


class Files:
    """Undo: revert a turn, a fork that restores files, the restore preview, git status, the
    snapshots' disk use, reverts a crash interrupted.

    `engine.files`; `fork` makes a plain fork (the session service's), which a fork that
    restores files starts from."""

    def __init__(
        self,
        data_dir: Path,
        default_cwd: str,
        store: Store,
        header: Header,
        attach: Callable[[str], Awaitable[Agent]],
        snapshots: Snapshotter,
        limits: Callable[[], Limits],
        fork: Callable[[str, int | None], Awaitable[str]],
        git: FolderGit,
        trusted: Callable[[Path], bool],
    ) -> None:
        """`snapshots`: the folder's snapshots around the steps that may change files, built
        before the agent pool that takes them (docs/architecture.md, "Snapshots")."""
        self._data_dir = data_dir
        self._default_cwd = default_cwd
        self._store = store
        self._header = header
        self._attach = attach
        self.snapshots = snapshots
        self._snapshot_limits = limits
        self._fork = fork
        self._git = git
        self._trusted = trusted

    async def revert_turn(self, session_id: str, turn: int) -> RevertTurnValue:
        """Put back every file `turn` changed, as it was before the turn's first change to it."""
        header = await self._header(session_id)
        agent = await self._attach(session_id)
        _idle(agent, session_id, turn)
        async with agent.exclusive:
            _idle(agent, session_id, turn)
            ledger = await self._ledger(session_id)
            wanted = ledger.revert(turn)
            unrecorded = ledger.unrecorded.get(turn)
            if not wanted and unrecorded is not None:
                why = f"what its shell commands changed was not recorded: {unrecorded}"
                raise RevertUnavailable(session_id, turn, why, unrecorded=unrecorded)
            if not wanted:
                raise RevertUnavailable(session_id, turn, "that turn changed no files")
            if turn in ledger.reverted:
                raise RevertUnavailable(session_id, turn, "that turn's changes were already reverted")
            todo = await self._plan(header, ledger, wanted)
            journal = await self._write_back(session_id, header, todo, "revert", turn, None)
            files, error = _outcome(journal)
            event = agent.journal.append(events.files_restored("revert", turn, files, error=error))
            await self._store.flush()
            await TOOL_WORKERS.run(undo_journal.finish, self._data_dir, journal)
        if error is not None:
            raise HostActionFailed(f"Reverting stopped: {error} (what was restored is listed in the session)")
        return RevertTurnValue(turn=turn, files=files, seq=event.seq)

    async def git_status(self, session_id: str) -> GitStatusValue:
        """The session folder's branch and changed files (read-only, bounded, sandboxed:
        host/engine/files/git/status.py); the count waits for trust when the repository's git
        configuration names programs."""
        header = await self._header(session_id)
        folder = Path(header.cwd or self._default_cwd)
        return await git_status(self._git, folder, self._trusted)

    async def restore_preview(self, session_id: str, at_seq: int | None) -> RestorePreviewValue:
        """What a fork at `at_seq` with `restoreFiles` would put back, and what would block it."""
        header = await self._header(session_id)
        anchor, turn = await self._anchor(session_id, at_seq)
        ledger = await self._ledger(session_id)
        wanted = ledger.restore_to(anchor)
        todo = await plan(Path(header.cwd or self._default_cwd), wanted, ledger, self._kept(session_id))
        todo.conflicts[:0] = await self._moved(header, wanted)
        return RestorePreviewValue(turn=turn, files=todo.preview(), conflicts=todo.conflicts)

    async def fork_restoring(self, session_id: str, at_seq: int | None) -> str:
        """`session.fork` with `restoreFiles`: the child, and the files put back as the anchor turn
        left them; recorded in both sessions."""
        header = await self._header(session_id)
        parent = await self._attach(session_id)
        anchor, turn = await self._anchor(session_id, at_seq)
        _idle(parent, session_id, turn)
        async with parent.exclusive:
            _idle(parent, session_id, turn)
            ledger = await self._ledger(session_id)
            todo = await self._plan(header, ledger, ledger.restore_to(anchor))
            child_id = await self._fork(session_id, at_seq)
            if not todo.targets and not todo.unchanged:
                return child_id  # no later turn changed a file: a plain fork
            journal = await self._write_back(session_id, header, todo, "fork", turn, child_id)
            files, error = _outcome(journal)
            parent.journal.append(events.files_restored("fork", turn, files, child_id, error))
            child = await self._attach(child_id)
            child.journal.append(events.files_restored("fork", turn, files, session_id, error))
            await self._store.flush()
            await TOOL_WORKERS.run(undo_journal.finish, self._data_dir, journal)
        if error is not None:
            raise HostActionFailed(f"The fork was made, but restoring its files stopped: {error}")
        return child_id

    async def rewind(self, session_id: str, at_seq: int, restore_files: bool) -> RewindValue:
        """`session.rewind`: the conversation goes back to before the person's message at
        `at_seq` (it and what followed leave the model's view, and stay in the log), and with
        `restore_files` the files go back as they were before it, all or nothing; conflicts leave
        every file as it is and are listed (docs/decisions.md, "Rewind in place")."""
        header = await self._header(session_id)
        agent = await self._attach(session_id)
        _idle_for_rewind(agent, session_id)
        async with agent.exclusive:
            _idle_for_rewind(agent, session_id)
            message, turn = await self._rewind_point(agent, session_id, at_seq)
            restored: list[RestoredFile] = []
            conflicts: list[FileConflict] = []
            journal: undo_journal.Journal | None = None
            error = None
            if restore_files:
                ledger = await self._ledger(session_id)
                wanted = ledger.restore_to(at_seq - 1)
                todo = await plan(
                    Path(header.cwd or self._default_cwd), wanted, ledger, self._kept(session_id)
                )
                todo.conflicts[:0] = await self._moved(header, wanted)
                if todo.conflicts:
                    conflicts = todo.conflicts
                elif todo.targets:
                    journal = await self._write_back(session_id, header, todo, "rewind", turn, None, at_seq)
                    restored, error = _outcome(journal)
            news = [events.files_restored("rewind", turn, restored, error=error)] if journal else []
            agent.journal.append_all([*news, events.session_rewound(at_seq, restored)])
            await self._store.flush()
            if journal is not None:
                await TOOL_WORKERS.run(undo_journal.finish, self._data_dir, journal)
            await agent.refold()
        if error is not None:
            raise HostActionFailed(f"Rewound, but restoring the files stopped: {error}")
        text = "\n\n".join(b.text for b in message.content if isinstance(b, TextBlock) and b.attached is None)
        return RewindValue(text=text, restored_files=restored, conflicts=conflicts)

    async def _rewind_point(self, agent: Agent, session_id: str, at_seq: int) -> tuple[Message, int]:
        """The person's message at `at_seq` and the turn it opened; RewindUnavailable when the
        seq is not such a message or is no longer in what the model is sent."""
        found = await self._store.events(session_id, at_seq, at_seq + 1)
        event = found[0] if found else None
        if (
            event is None
            or event.type != "user/message"
            or event.data.get("source", {}).get("kind") != "user"
        ):
            raise RewindUnavailable(session_id, "that is not a message you wrote")
        if all(node.seq != at_seq for node in agent.conversation.surface.nodes):
            raise RewindUnavailable(session_id, "that message was already rewound or summarized")
        starts = [e for e in await self._store.events_of_types(session_id, ("turn/start",)) if e.seq < at_seq]
        turn = int(starts[-1].data.get("turn", 0)) if starts else 0
        return Message.model_validate(event.data), turn

    async def snapshot_space(self) -> SpaceUsedValue:
        """What the snapshots take per folder, against the budget (Settings shows it)."""
        limits = self._snapshot_limits()
        folders = [
            FolderSpace(path=u.path, bytes=u.bytes, turns=u.turns, note=u.note)
            for u in await self.snapshots.usage()
        ]
        return SpaceUsedValue(
            folders=folders,
            total_bytes=sum(f.bytes for f in folders),
            folder_budget_bytes=limits.workspace_bytes,
            total_budget_bytes=limits.total_bytes,
            unavailable=self.snapshots.unavailable,
        )

    async def free_snapshot_space(self, path: str | None) -> int:
        """Delete the snapshots of one folder (a path `snapshot_space` listed) or of all; an
        unknown path frees nothing."""
        if path is None:
            return await self.snapshots.free()
        key = next((u.key for u in await self.snapshots.usage() if u.path == path), None)
        return 0 if key is None else await self.snapshots.free(key)

    # ---- the parts ------------------------------------------------------------------------

    async def _ledger(self, session_id: str) -> Ledger:
        return Ledger.read(await self._store.events_of_types(session_id, LEDGER_TYPES))

    async def _anchor(self, session_id: str, at_seq: int | None) -> tuple[int, int]:
        """(seq of the fork's last turn/end, that turn's number)."""
        anchor = await self._store.fork_anchor(session_id, at_seq)
        if anchor is None:
            raise ForkUnavailable(session_id, "no completed turn at or after that point")
        found = await self._store.events(session_id, anchor, anchor + 1)
        return anchor, int(found[0].data.get("turn", 0)) if found else 0

    def _kept(self, session_id: str) -> Callable[[str, Want], Awaitable[bool]]:
        async def kept(path: str, want: Want) -> bool:
            return await self._content_of(session_id, path, want) is not None

        return kept

    async def _content_of(self, session_id: str, path: str, want: Want) -> tuple[bytes | None] | None:
        """The kept content of `want.target` (in a 1-tuple; None inside: absent), from a file
        tool's checkpoint or a step's snapshot; None when neither kept it."""
        target = want.target.sha256 if want.target is not None else None
        found = await self._store.checkpoint(session_id, want.turn, path)
        if found is not None and found.sha256 == target:
            return (found.data,)
        row = await self.snapshots.kept(session_id, want.turn, path)
        if row is None or row.sha256 != target:
            return None
        try:
            return (await self.snapshots.content(row),)
        except SnapshotError:
            return None

    async def _moved(self, header: SessionHeader, wanted: dict[str, Want]) -> list[FileConflict]:
        """The folder itself, when it (or a folder above it) is not where it was when those turns
        changed files: it became a symlink, or was moved behind one (docs/threat-model.md)."""
        cwd = header.cwd or self._default_cwd
        turns = sorted({w.turn for w in wanted.values()})
        roots = await self._store.call(lambda conn: read_roots(conn, header.id, turns)) if turns else set()
        real, plain = await TOOL_WORKERS.run(_real_and_plain, cwd)
        moved = real not in roots if roots else real != plain
        return [FileConflict(path=cwd, reason="changed")] if moved and wanted else []

    async def _plan(self, header: SessionHeader, ledger: Ledger, wanted: dict[str, Want]) -> Plan:
        todo = await plan(Path(header.cwd or self._default_cwd), wanted, ledger, self._kept(header.id))
        todo.conflicts[:0] = await self._moved(header, wanted)
        if todo.conflicts:
            raise RevertConflict(header.id, todo.conflicts)
        return todo

    async def _write_back(
        self,
        session_id: str,
        header: SessionHeader,
        todo: Plan,
        cause: str,
        turn: int,
        other: str | None,
        rewind_at: int | None = None,
    ) -> undo_journal.Journal:
        """Stage every file, commit the journal, rename them all; the journal says what was done.
        HostActionFailed (nothing changed) when staging fails."""
        contents: list[tuple[str, bytes | None]] = []
        for path, want in todo.targets:
            kept = await self._content_of(session_id, path, want)
            if kept is None:
                raise RevertConflict(session_id, [FileConflict(path=path, reason="not-saved")])
            contents.append((path, kept[0]))
        files = [
            RestoredFile(path=p, action="restored" if w.target is not None else "removed", state=w.target)
            for p, w in todo.targets
        ] + [RestoredFile(path=p, action="unchanged", state=t) for p, t in todo.unchanged]
        at = {session_id: self._store.next_seq(session_id)}
        if other is not None:
            at[other] = self._store.next_seq(other)
        journal = undo_journal.Journal(
            id=undo_journal.new_id(),
            session_id=session_id,
            turn=turn,
            cause=cause,
            root=await TOOL_WORKERS.run(os.path.realpath, header.cwd or self._default_cwd),
            entries=[],
            at_seq=at,
            fork_session_id=other,
            files=[f.model_dump(mode="json", by_alias=True) for f in files],
            rewind_at=rewind_at,
        )
        try:
            await TOOL_WORKERS.run(undo_journal.stage, self._data_dir, journal, contents, todo.replacing)
        except undo_journal.Escaped as exc:
            raise RevertConflict(session_id, [FileConflict(path=journal.root, reason="changed")]) from exc
        except OSError as exc:
            raise HostActionFailed(f"Reverting failed, nothing was changed: {exc.strerror or exc}") from exc
        failure = await TOOL_WORKERS.run(undo_journal.commit, self._data_dir, journal)
        journal.error = None if failure is None else f"{failure.strerror or failure}"
        return journal

    async def recover_reverts(self) -> None:
        """At start: finish each revert a crash interrupted after its commit point (and log it),
        roll back each one that was still staging (docs/architecture.md, "Checkpoints and undo")."""
        for journal in await TOOL_WORKERS.run(undo_journal.pending, self._data_dir):
            if journal.state != "commit":
                await TOOL_WORKERS.run(undo_journal.rollback, self._data_dir, journal)
                continue
            failure = await TOOL_WORKERS.run(undo_journal.commit, self._data_dir, journal)
            journal.error = None if failure is None else f"{failure.strerror or failure}"
            files, error = _outcome(journal)
            pairs = [(journal.session_id, journal.fork_session_id)]
            if journal.fork_session_id is not None:
                pairs.append((journal.fork_session_id, journal.session_id))
            try:
                for sid, other in pairs:
                    if await self._logged(sid, journal):
                        continue
                    cause = cast(Cause, journal.cause) if journal.cause in CAUSES else "revert"
                    agent = await self._attach(sid)
                    news: list[events.NewEvent[Any]] = [
                        events.files_restored(cause, journal.turn, files, other, error)
                    ]
                    if journal.rewind_at is not None:  # the rewind this journal was part of
                        news.append(events.session_rewound(journal.rewind_at, files))
                    agent.journal.append_all(news)
                    if journal.rewind_at is not None:
                        await self._store.flush()
                        await agent.refold()
                await self._store.flush()
            except SessionNotFound:
                pass  # the session is gone: nothing to log it in
            except EngineError as exc:
                log.warning("an interrupted revert was finished but could not be logged yet: %s", exc)
                continue
            await TOOL_WORKERS.run(undo_journal.finish, self._data_dir, journal)

    async def _logged(self, session_id: str, journal: undo_journal.Journal) -> bool:
        since = journal.at_seq.get(session_id, 0)
        found = await self._store.events_of_types(session_id, ("files/restored",))
        return any(e.seq >= since and e.data.get("turn") == journal.turn for e in found)


def _real_and_plain(cwd: str) -> tuple[str, str]:
    return os.path.realpath(cwd), os.path.normpath(os.path.abspath(cwd))


def _outcome(journal: undo_journal.Journal) -> tuple[list[RestoredFile], str | None]:
    """What the journal put back (every file when nothing failed), for `files/restored`."""
    done = set(journal.done)
    files = [RestoredFile.model_validate(f) for f in journal.files]
    return [f for f in files if f.action == "unchanged" or f.path in done], journal.error


def _idle_for_rewind(agent: Agent, session_id: str) -> None:
    if agent.running or agent.turn_open:
        raise RewindUnavailable(session_id, "the agent is working; stop it or wait until it is done")


def _idle(agent: Agent, session_id: str, turn: int) -> None:
    if agent.running or agent.turn_open:
        raise RevertUnavailable(session_id, turn, "the agent is working; stop it or wait until it is done")


def snapshot_limits(settings: ConfigPlane) -> Limits:
    """The `undo` settings: the snapshots' disk budget and size cap (docs/architecture.md,
    "Snapshots")."""
    section: UndoSection = settings.settings.section(UNDO)
    mib = 1 << 20
    return Limits(section.workspace_budget_mb * mib, section.total_budget_mb * mib, section.max_file_mb * mib)
