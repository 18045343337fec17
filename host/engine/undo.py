"""Undoing file changes: which files a revert (or a fork's restore) would put back, the refusals,
and the writes (docs/architecture.md, "Checkpoints and undo").

The record is the log: each file tool's `tool/result` carries its `change` (the content hash
before and after), any other step's the `changes` its snapshots found (a shell command's), each
revert or fork restore a `files/restored` event. A file is put back only
when it still holds what the app last left there; anything else is a conflict and nothing at all
is written. The content to put back is the checkpoint kept before the turn's first change.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from contract.events import SessionEvent
from contract.filechange import FileChange, FileConflict, FilesRestored, FileState, RestoredFile
from host.engine.tools.changes import snapshot
from host.engine.tools.common import ToolError, resolve_inside
from host.engine.workers import TOOL_WORKERS

LEDGER_TYPES = ("tool/result", "files/restored")


@dataclass(frozen=True)
class Record:
    """One thing the app did to a file: a tool's change (`turn`) or a restore (`restore`)."""

    seq: int
    turn: int | None
    path: str
    before: FileState | None
    after: FileState | None
    restore: str | None = None
    """`revert` or `fork` for a restore."""


@dataclass
class Ledger:
    """A session's file records, in log order."""

    records: list[Record] = field(default_factory=list)
    reverted: set[int] = field(default_factory=set)
    """Turns whose changes were reverted."""

    @classmethod
    def read(cls, events: Sequence[SessionEvent]) -> Ledger:
        ledger = cls()
        for event in events:
            data = event.data
            if event.type == "tool/result":
                turn = int(data.get("turn", 0))
                found = ([data["change"]] if data.get("change") else []) + list(data.get("changes") or [])
                for raw in found:  # a file tool's own change, or what the snapshots saw a step do
                    change = FileChange.model_validate(raw)
                    ledger.records.append(Record(event.seq, turn, change.path, change.before, change.after))
            elif event.type == "files/restored":
                restored = FilesRestored.model_validate(data)
                if restored.cause == "revert" and restored.error is None:
                    ledger.reverted.add(restored.turn)
                for f in restored.files:
                    ledger.records.append(Record(event.seq, None, f.path, None, f.state, restored.cause))
        return ledger

    def revert(self, turn: int) -> dict[str, Want]:
        """Per file the turn changed: back to before its first change, if it holds what the
        turn's last change left."""
        out: dict[str, Want] = {}
        for r in self.records:
            if r.turn == turn and r.restore is None:
                first = out[r.path].target if r.path in out else r.before
                out[r.path] = Want(turn, first, r.after, r.seq)
        return out

    def restore_to(self, seq: int) -> dict[str, Want]:
        """Per file a tool changed after `seq`: back to what it held then (the `before` of the
        first change after it), if it holds what the app last left there."""
        out: dict[str, Want] = {}
        for r in self.records:
            if r.seq > seq and r.turn is not None and r.path not in out:
                last = [x for x in self.records if x.path == r.path][-1]
                out[r.path] = Want(r.turn, r.before, last.after, last.seq)
        return out

    def recorded_since(self, path: str, seq: int) -> list[FileState | None]:
        """Every state the app left `path` in after `seq`."""
        return [r.after for r in self.records if r.path == path and r.seq > seq]


@dataclass
class Plan:
    """What to write: (path, target state) per file, and the files that block it."""

    targets: list[tuple[str, Want]] = field(default_factory=list)
    unchanged: list[tuple[str, FileState | None]] = field(default_factory=list)
    conflicts: list[FileConflict] = field(default_factory=list)

    def preview(self) -> list[RestoredFile]:
        return [
            RestoredFile(path=p, action="restored" if w.target else "removed", state=w.target)
            for p, w in self.targets
        ]


def current(cwd: Path, shown: str) -> FileState | ToolError | None:
    """What `shown` holds now, or the ToolError saying why it cannot be read as a file."""
    try:
        return snapshot(cwd, resolve_inside(cwd, shown), shown).state
    except ToolError as exc:
        return exc
    except OSError as exc:
        return ToolError(str(exc), "IO_ERROR")


@dataclass(frozen=True)
class Want:
    turn: int
    """The turn whose checkpoint of the file holds `target`."""
    target: FileState | None
    """What the file should hold afterwards (None: absent)."""
    expected: FileState | None
    """What the app last left there: the only content it may overwrite."""
    since: int
    """The seq of that record: a state the app recorded later means "changed again by the app"."""


async def plan(
    cwd: Path, wanted: dict[str, Want], ledger: Ledger, kept: Callable[[str, Want], Awaitable[bool]]
) -> Plan:
    """Which files to write and which block the whole restore (nothing is written here).
    `kept(path, want)`: the store holds the checkpoint of `want.target` (host-side, never only
    the log's word)."""
    out = Plan()
    for path, want in sorted(wanted.items()):
        now = await TOOL_WORKERS.run(current, cwd, path)  # the user's files: tool work
        if not isinstance(now, ToolError) and now == want.target:
            out.unchanged.append((path, want.target))
        elif isinstance(now, ToolError) or now != want.expected:
            again = not isinstance(now, ToolError) and now in ledger.recorded_since(path, want.since)
            out.conflicts.append(FileConflict(path=path, reason="later-turn" if again else "changed"))
        elif not await kept(path, want):
            out.conflicts.append(FileConflict(path=path, reason="not-saved"))
        else:
            out.targets.append((path, want))
    return out
