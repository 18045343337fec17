"""What a worktree operation is doing, on disk before it changes anything (docs/decisions.md,
"Worktree sessions": the hand-off journal).

Each operation that changes the person's repository or checkout — adding a worktree, moving a
session to one, merging, removing — first writes a step record here (atomic: a temporary file,
fsync, rename, fsync of the folder), updates its `state` at the moment that decides, and deletes
it when done. The next start reads what is left and finishes or rolls back each one
(`service.Worktrees.recover`). File writes into the checkout (apply, and the checkout's side of
a move) use the revert journal's staging (`host/engine/files/undo_journal.py`) in a folder of their
own, so the revert recovery never sees them.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

Op = Literal["add", "adopt", "merge", "remove"]

FOLDER = "worktree-journal"


def root(data_dir: Path) -> Path:
    """The folder whose `undo-journal/` holds the staged file writes of hand-offs."""
    return data_dir / FOLDER


def steps_dir(data_dir: Path) -> Path:
    return root(data_dir) / "steps"


@dataclass
class Step:
    """One operation in progress."""

    id: str
    op: Op
    state: str
    data: dict[str, Any] = field(default_factory=dict)

    def dump(self) -> bytes:
        return json.dumps(asdict(self)).encode()

    @classmethod
    def load(cls, raw: bytes) -> Step:
        found = json.loads(raw)
        return cls(id=str(found["id"]), op=found["op"], state=str(found["state"]), data=dict(found["data"]))


def new_step(op: Op, state: str, **data: Any) -> Step:
    return Step(id=secrets.token_hex(8), op=op, state=state, data=data)


def save(data_dir: Path, step: Step) -> None:
    """Write the record durably (blocking: run it off the loop)."""
    folder = steps_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{step.id}.{secrets.token_hex(4)}.tmp"
    with open(tmp, "wb") as fh:
        fh.write(step.dump())
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, folder / f"{step.id}.json")
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def done(data_dir: Path, step: Step) -> None:
    with contextlib.suppress(FileNotFoundError):
        (steps_dir(data_dir) / f"{step.id}.json").unlink()


def set_aside(data_dir: Path, step: Step, why: str) -> None:
    """A record recovery could not act on: renamed `.broken` with the reason, never deleted."""
    path = steps_dir(data_dir) / f"{step.id}.json"
    step.data["abandoned"] = why
    with contextlib.suppress(OSError):
        path.write_bytes(step.dump())
        path.rename(path.with_suffix(".broken"))


def pending(data_dir: Path) -> list[Step]:
    """Records a crash left behind, oldest first (unreadable ones are set aside)."""
    folder = steps_dir(data_dir)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns):
        try:
            found.append(Step.load(path.read_bytes()))
        except (OSError, ValueError, TypeError, KeyError):
            with contextlib.suppress(OSError):
                path.rename(path.with_suffix(".broken"))
    for stray in folder.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            stray.unlink()
    return found
