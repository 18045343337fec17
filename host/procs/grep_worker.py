"""The grep tool's search, run in its own process (stdlib only; see host/procs/__init__.py).

Reads one JSON request on stdin, writes one JSON answer `{"text": ...}` on stdout. The host kills
this process at a hard time limit: Python's `re` holds the GIL while it backtracks, so a
catastrophic pattern would otherwise freeze the whole host (docs/threat-model.md).

Request: root (the session directory, resolved), target (file or directory inside it), pattern,
name_regex / by_path (an optional file filter), max_matches, max_line, max_file_bytes, budget
(seconds of soft time limit, after which the matches so far are reported).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from typing import Any

SKIP_DIRS = frozenset({".git", ".hg", ".svn"})
SAMPLE = 8192
MEMORY_LIMIT = 2 << 30


def inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def opened_path(fd: int, fallback: str) -> str:
    """Where an open descriptor really points (Linux: /proc), else the path's realpath."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(fallback)


def show(root: str, path: str) -> str:
    rel = os.path.relpath(path, root)
    return rel.replace(os.sep, "/")


def candidates(req: dict[str, Any]) -> list[str]:
    target: str = req["target"]
    if not os.path.isdir(target):
        return [target]
    name_regex = re.compile(req["name_regex"], re.DOTALL) if req.get("name_regex") else None
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(target, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        if not inside(req["root"], os.path.realpath(dirpath)):
            dirnames[:] = []
            continue
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if name_regex is not None:
                subject = os.path.relpath(path, target).replace(os.sep, "/") if req.get("by_path") else name
                if not name_regex.match(subject):
                    continue
            out.append(path)
    return out


def read_text(req: dict[str, Any], path: str) -> str | None:
    """The file's text, or None when it is not a regular file inside the root, too large or
    binary. Opened non-blocking, so a FIFO never hangs the search."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > req["max_file_bytes"]:
            return None
        if not inside(req["root"], opened_path(fd, path)):
            return None
        data = fh.read(req["max_file_bytes"] + 1)
    if b"\0" in data[:SAMPLE]:
        return None
    return data.decode("utf-8", errors="replace")


def search(req: dict[str, Any]) -> str:
    regex = re.compile(req["pattern"])
    deadline = time.monotonic() + float(req["budget"])
    matches: list[str] = []
    scanned = skipped = 0
    cut: str | None = None
    for path in candidates(req):
        if time.monotonic() > deadline:
            cut = f"stopped after {req['budget']:.0f}s"
            break
        try:
            text = read_text(req, path)
        except OSError:
            text = None
        if text is None:
            skipped += 1
            continue
        scanned += 1
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line):
                shown = line if len(line) <= req["max_line"] else line[: req["max_line"]] + "…"
                matches.append(f"{show(req['root'], path)}:{number}: {shown}")
                if len(matches) >= req["max_matches"]:
                    cut = f"stopped at {req['max_matches']} matches"
                    break
        if cut:
            break
    if not matches:
        note = f" ({skipped} binary/large/unreadable files skipped)" if skipped else ""
        return f"No matches for /{req['pattern']}/ in {scanned} files{note}."
    text = "\n".join(matches)
    if cut:
        text += f"\n\n({cut}; {scanned} files searched — narrow the pattern, path or glob)"
    return text


def limit_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass


def main(argv: list[str]) -> int:
    del argv
    limit_memory()
    request = json.loads(sys.stdin.buffer.read().decode("utf-8", errors="surrogatepass"))
    answer = {"text": search(request)}
    sys.stdout.buffer.write(json.dumps(answer, ensure_ascii=True).encode("ascii"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
