"""Checkpoints before a turn changes a file (docs/architecture.md, "Checkpoints and undo").

Before a turn's first change to a file, what the file held (or that it did not exist) is kept in
the store, the content by its hash, with the folder's real path for that turn. The write waits
for the commit, so a file is never changed
before its earlier content is safe. A file too large to keep gets no checkpoint at all.
"""

from __future__ import annotations

import os
from pathlib import Path

from host.engine.store import Store
from host.engine.store.blobs import write_root
from host.engine.tools.base import Snapshot


class FileCheckpoints:
    """One per agent; remembers which files the running turn has already checkpointed."""

    def __init__(self, store: Store, session_id: str, cwd: Path | None = None) -> None:
        self.store = store
        self.session_id = session_id
        self.root = os.path.realpath(cwd) if cwd is not None else None
        """The folder's real path: a revert refuses to write through it once it moved."""
        self._turn = -1
        self._seen: set[str] = set()

    async def before(self, turn: int, path: str, snap: Snapshot) -> None:
        if turn != self._turn:
            self._turn, self._seen = turn, set()
        if path in self._seen:
            return
        if snap.state is not None and snap.data is None:
            self._seen.add(path)
            return  # too large to keep: a revert will say so
        sha256 = None if snap.state is None else snap.state.sha256
        if self.root is not None and not self._seen:
            root, sid = self.root, self.session_id
            await self.store.call(lambda conn: write_root(conn, sid, turn, root))
        await self.store.put_checkpoint(self.session_id, turn, path, sha256, snap.data)
        self._seen.add(path)  # only once kept: a write that failed (a full disk) is tried again
