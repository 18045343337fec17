"""Undoing file changes: which files a revert (or a fork's restore) would put back, the refusals,
and the writes (docs/architecture.md, "Checkpoints and undo").

The record is the log: each file tool's `tool/result` carries its `change` (the content hash
before and after), any other step's the `changes` its snapshots found (a shell command's), each
revert or fork restore a `files/restored` event. A file is put back only
when it still holds what the app last left there; anything else is a conflict and nothing at all
is written. The content to put back is the checkpoint kept before the turn's first change.

What a step may have left in a file's place is part of that record (docs/decisions.md,
"Snapshots: a stale lock, a failed snapshot, a file replaced by a link"): a symlink (by its text,
never followed), a folder (put back only when all it holds is files the same restore removes:
nothing the person made there is deleted) or a special file. A step whose snapshots failed
leaves its `snapshotError`, so a revert can say why it knows nothing of that step.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from contract.events import SessionEvent
from contract.filechange import FileChange, FileConflict, FilesRestored, FileState, RestoredFile
from host.engine.tools.changes import snapshot
from host.engine.tools.common import ToolError, resolve_inside
from host.workers import TOOL_WORKERS

LEDGER_TYPES = ("tool/result", "files/restored")
MAX_FOLDER_ENTRIES = 10_000
"""A folder that replaced a file is looked through entry by entry; a larger one is a conflict."""


@dataclass(frozen=True)
class NotAFile:
    """What a step left in a file's place: a symlink (`link`: its text), a folder, other."""

    kind: str
    link: str | None = None


Held = FileState | NotAFile | None
"""What a path holds: a file's content, something else, or nothing."""


def after_of(change: FileChange) -> Held:
    return NotAFile(change.after_kind, change.after_link) if change.after_kind else change.after


@dataclass(frozen=True)
class Record:
    """One thing the app did to a file: a tool's change (`turn`) or a restore (`restore`)."""

    seq: int
    turn: int | None
    path: str
    before: FileState | None
    after: Held
    restore: str | None = None
    """`revert` or `fork` for a restore."""


@dataclass
class Ledger:
    """A session's file records, in log order."""

    records: list[Record] = field(default_factory=list)
    reverted: set[int] = field(default_factory=set)
    """Turns whose changes were reverted."""
    unrecorded: dict[int, str] = field(default_factory=dict)
    """Turns with a step whose snapshots failed: why (the first such step's `snapshotError`)."""

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
                    record = Record(event.seq, turn, change.path, change.before, after_of(change))
                    ledger.records.append(record)
                why = data.get("snapshotError")
                if isinstance(why, str) and why:
                    ledger.unrecorded.setdefault(turn, why)
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

    def recorded_since(self, path: str, seq: int) -> list[Held]:
        """Every state the app left `path` in after `seq`."""
        return [r.after for r in self.records if r.path == path and r.seq > seq]


@dataclass
class Plan:
    """What to write: (path, target state) per file, and the files that block it."""

    targets: list[tuple[str, Want]] = field(default_factory=list)
    unchanged: list[tuple[str, FileState | None]] = field(default_factory=list)
    conflicts: list[FileConflict] = field(default_factory=list)
    replacing: dict[str, str] = field(default_factory=dict)
    """Targets where something else stands now (path → its kind): it is removed first."""

    def preview(self) -> list[RestoredFile]:
        return [
            RestoredFile(path=p, action="restored" if w.target else "removed", state=w.target)
            for p, w in self.targets
        ]


def current(cwd: Path, shown: str) -> Held | ToolError:
    """What `shown` holds now, or the ToolError saying why it cannot be read. Its folder is
    resolved inside `cwd`; the entry itself is never followed (a symlink is its text)."""
    try:
        parent = resolve_inside(cwd, str(Path(shown).parent))
        where = parent / Path(shown).name
        try:
            info = os.lstat(where)
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(info.st_mode):
            return NotAFile("symlink", os.fsdecode(os.readlink(where)))
        if stat.S_ISDIR(info.st_mode):
            return NotAFile("directory")
        if not stat.S_ISREG(info.st_mode):
            return NotAFile("other")
        return snapshot(cwd, where, shown).state
    except ToolError as exc:
        return exc
    except OSError as exc:
        return ToolError(str(exc), "IO_ERROR")


def leftovers(cwd: Path, folder: str, removed: set[str]) -> bool:
    """Whether the folder `folder` holds anything but (empty folders and) the files in
    `removed`: what the person put there is never deleted by a restore. Walked without
    following a link; a folder too large to look through counts as holding more."""
    root = cwd / folder
    seen = 0
    for base, dirs, files in os.walk(root, followlinks=False):
        rel = Path(base).relative_to(cwd)
        for name in files + [d for d in dirs if os.path.islink(os.path.join(base, d))]:
            seen += 1
            if seen > MAX_FOLDER_ENTRIES or (rel / name).as_posix() not in removed:
                return True
    return False


@dataclass(frozen=True)
class Want:
    turn: int
    """The turn whose checkpoint of the file holds `target`."""
    target: FileState | None
    """What the file should hold afterwards (None: absent)."""
    expected: Held
    """What the app last left there: the only content it may overwrite (or remove: a symlink or
    folder a step left in the file's place)."""
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
            if isinstance(now, NotAFile):
                out.replacing[path] = now.kind
    removed = {p for p, w in out.targets if w.target is None}
    for path, kind in sorted(out.replacing.items()):
        if kind == "directory" and await TOOL_WORKERS.run(leftovers, cwd, path, removed):
            out.conflicts.append(FileConflict(path=path, reason="changed"))
    return out
