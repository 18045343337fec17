"""`Engine` methods for undoing the agent's file changes: revert a turn, and restore the files a
fork leaves behind (docs/architecture.md, "Checkpoints and undo"). A mixin of the facade.

Both run with the session's agent held between turns (its turn lock), so no tool writes while
files are put back; a session that is working is refused. Either everything planned is written
or, when a file blocks it, nothing (`revert-conflict`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from contract.filechange import RestoredFile
from contract.files import GitStatusValue, RestorePreviewValue, RevertTurnValue
from host.engine import events
from host.engine.agent import Agent
from host.engine.errors import ForkUnavailable, HostActionFailed, RevertConflict, RevertUnavailable
from host.engine.git_status import git_status
from host.engine.store import SessionHeader, Store
from host.engine.undo import LEDGER_TYPES, Ledger, Plan, Want, apply, plan
from host.engine.workers import TOOL_WORKERS


class FilesDoor:
    """Mixed into `Engine`, which provides the attributes declared here."""

    store: Store
    default_cwd: str

    if TYPE_CHECKING:  # provided by Engine

        async def attach(self, session_id: str) -> Agent: ...

        async def _header(self, session_id: str) -> SessionHeader: ...

        async def _fork(self, session_id: str, at_seq: int | None) -> str: ...

    async def revert_turn(self, session_id: str, turn: int) -> RevertTurnValue:
        """Put back every file `turn` changed, as it was before the turn's first change to it."""
        header = await self._header(session_id)
        agent = await self.attach(session_id)
        _idle(agent, session_id, turn)
        async with agent.exclusive:
            _idle(agent, session_id, turn)
            ledger = await self._ledger(session_id)
            wanted = ledger.revert(turn)
            if not wanted:
                raise RevertUnavailable(session_id, turn, "that turn changed no files")
            if turn in ledger.reverted:
                raise RevertUnavailable(session_id, turn, "that turn's changes were already reverted")
            todo = await self._plan(header, ledger, wanted)
            files, error = await self._write_back(session_id, header, todo)
            event = agent.journal.append(events.files_restored("revert", turn, files, error=error))
            await self.store.flush()
        if error is not None:
            raise HostActionFailed(f"Reverting stopped: {error} (what was restored is listed in the session)")
        return RevertTurnValue(turn=turn, files=files, seq=event.seq)

    async def git_status(self, session_id: str) -> GitStatusValue:
        """The session folder's branch and changed files (read-only, bounded: git_status.py)."""
        header = await self._header(session_id)
        return await git_status(Path(header.cwd or self.default_cwd))

    async def restore_preview(self, session_id: str, at_seq: int | None) -> RestorePreviewValue:
        """What a fork at `at_seq` with `restoreFiles` would put back, and what would block it."""
        header = await self._header(session_id)
        anchor, turn = await self._anchor(session_id, at_seq)
        ledger = await self._ledger(session_id)
        todo = await plan(
            Path(header.cwd or self.default_cwd),
            ledger.restore_to(anchor),
            ledger,
            self._kept(session_id),
        )
        return RestorePreviewValue(turn=turn, files=todo.preview(), conflicts=todo.conflicts)

    async def fork_restoring(self, session_id: str, at_seq: int | None) -> str:
        """`session.fork` with `restoreFiles`: the child, and the files put back as the anchor turn
        left them; recorded in both sessions."""
        header = await self._header(session_id)
        parent = await self.attach(session_id)
        anchor, turn = await self._anchor(session_id, at_seq)
        _idle(parent, session_id, turn)
        async with parent.exclusive:
            _idle(parent, session_id, turn)
            ledger = await self._ledger(session_id)
            todo = await self._plan(header, ledger, ledger.restore_to(anchor))
            child_id = await self._fork(session_id, at_seq)
            if not todo.targets and not todo.unchanged:
                return child_id  # no later turn changed a file: a plain fork
            files, error = await self._write_back(session_id, header, todo)
            parent.journal.append(events.files_restored("fork", turn, files, child_id, error))
            child = await self.attach(child_id)
            child.journal.append(events.files_restored("fork", turn, files, session_id, error))
            await self.store.flush()
        if error is not None:
            raise HostActionFailed(f"The fork was made, but restoring its files stopped: {error}")
        return child_id

    # ---- the parts ------------------------------------------------------------------------

    async def _ledger(self, session_id: str) -> Ledger:
        return Ledger.read(await self.store.events_of_types(session_id, LEDGER_TYPES))

    async def _anchor(self, session_id: str, at_seq: int | None) -> tuple[int, int]:
        """(seq of the fork's last turn/end, that turn's number)."""
        anchor = await self.store.fork_anchor(session_id, at_seq)
        if anchor is None:
            raise ForkUnavailable(session_id, "no completed turn at or after that point")
        found = await self.store.events(session_id, anchor, anchor + 1)
        return anchor, int(found[0].data.get("turn", 0)) if found else 0

    def _kept(self, session_id: str) -> Callable[[str, Want], Awaitable[bool]]:
        async def kept(path: str, want: Want) -> bool:
            found = await self.store.checkpoint(session_id, want.turn, path)
            target = want.target.sha256 if want.target is not None else None
            return found is not None and found.sha256 == target

        return kept

    async def _plan(self, header: SessionHeader, ledger: Ledger, wanted: dict[str, Want]) -> Plan:
        todo = await plan(Path(header.cwd or self.default_cwd), wanted, ledger, self._kept(header.id))
        if todo.conflicts:
            raise RevertConflict(header.id, todo.conflicts)
        return todo

    async def _write_back(
        self, session_id: str, header: SessionHeader, todo: Plan
    ) -> tuple[list[RestoredFile], str | None]:
        contents: list[tuple[str, bytes | None]] = []
        for path, want in todo.targets:
            kept = await self.store.checkpoint(session_id, want.turn, path)
            contents.append((path, kept.data if kept is not None else None))
        done, failure = await TOOL_WORKERS.run(apply, Path(header.cwd or self.default_cwd), contents)
        states = {p: w.target for p, w in todo.targets}
        files = [
            RestoredFile(path=p, action="restored" if states[p] is not None else "removed", state=states[p])
            for p in done
        ]
        files += [RestoredFile(path=p, action="unchanged", state=t) for p, t in todo.unchanged]
        return files, None if failure is None else f"{failure.strerror or failure}"


def _idle(agent: Agent, session_id: str, turn: int) -> None:
    if agent.running or agent.turn_open:
        raise RevertUnavailable(session_id, turn, "the agent is working; stop it or wait until it is done")
