"""A session's project: its root folder and the instructions file there (AGENTS.md, else CLAUDE.md).

The root is the nearest ancestor of the session's folder that holds `.git`, else the folder
itself. The instructions join the system prompt and are read again whenever the file changes
(checked by a `stat` before each model request). See docs/architecture.md, "Project
instructions".
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
MAX_INSTRUCTION_BYTES = 100 * 1024


def project_root(cwd: Path) -> Path:
    """The nearest ancestor of `cwd` (itself included) holding `.git`, else `cwd`."""
    start = Path(os.path.abspath(cwd))
    for folder in (start, *start.parents):
        try:
            if (folder / ".git").exists():
                return folder
        except OSError:
            continue
    return start


@dataclass(frozen=True)
class Instructions:
    name: str
    """`AGENTS.md` or `CLAUDE.md`."""
    path: Path
    text: str
    truncated: bool = False

    def prompt_section(self) -> str:
        note = f"\n\n(The file is longer; only its first {MAX_INSTRUCTION_BYTES // 1024} KiB are shown.)"
        return (
            f"# Project instructions\n\nThe project at {self.path.parent} has instructions in "
            f"{self.name}. Follow them when you work in it:\n\n{self.text.strip()}"
            + (note if self.truncated else "")
        )


def instructions_view(found: Instructions | None) -> dict[str, object] | None:
    """The `instructions` session projection: which file joins the system prompt."""
    if found is None:
        return None
    return {"name": found.name, "path": str(found.path), "truncated": found.truncated}


class ProjectInstructions:
    """The instructions file of one project root, re-read when its size, mtime or inode changes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seen: dict[str, tuple[tuple[int, int, int], Instructions | None]] = {}
        self._lock = threading.Lock()

    def current(self) -> Instructions | None:
        """The first of AGENTS.md, CLAUDE.md that exists with some text (a stat per file)."""
        for name in INSTRUCTION_FILES:
            path = self.root / name
            try:
                info = path.stat()
            except OSError:
                continue
            key = (info.st_mtime_ns, info.st_size, info.st_ino)
            with self._lock:
                seen = self._seen.get(name)
            if seen is None or seen[0] != key:
                seen = (key, _read(name, path) if path.is_file() else None)
                with self._lock:
                    self._seen[name] = seen
            if seen[1] is not None:
                return seen[1]
        return None


def _read(name: str, path: Path) -> Instructions | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_INSTRUCTION_BYTES + 1)
    except OSError:
        return None
    truncated = len(data) > MAX_INSTRUCTION_BYTES
    text = data[:MAX_INSTRUCTION_BYTES].decode("utf-8", errors="replace")
    if not text.strip():
        return None
    return Instructions(name=name, path=path, text=text, truncated=truncated)
