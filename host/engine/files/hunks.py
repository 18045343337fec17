"""A file's combined diff as hunks, and undoing one hunk (docs/architecture.md, "The Changes view").

Pure functions on bytes: lines keep their own endings, so reverting a hunk puts back exactly the
bytes the session started with in that region and leaves every other line as it is now. A hunk
is named by the SHA-256 of its text (line numbers included): with the file's content hash the
view saw, a stale view can never revert a different region.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass

from host.engine.tools.changes import CONTEXT_LINES, MAX_DIFF_BYTES, MAX_DIFF_CHARS, MAX_DIFF_LINES

NO_EOL = "\\ No newline at end of file"


@dataclass(frozen=True)
class Hunk:
    id: str
    diff: str
    added: int
    removed: int
    ops: tuple[tuple[str, int, int, int, int], ...]
    """difflib opcodes: (tag, i1, i2, j1, j2) into the old and new lines."""


@dataclass
class Compared:
    hunks: list[Hunk]
    binary: bool = False
    too_big: bool = False
    note: str | None = None


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _show(prefix: str, line: bytes) -> list[str]:
    text = line.decode("utf-8", errors="replace").rstrip("\r\n")
    out = [prefix + text]
    if not line.endswith((b"\n", b"\r")):
        out.append(NO_EOL)
    return out


def _range(start: int, count: int) -> str:
    """The `@@` range as unified_diff writes it (an empty range names the line before it)."""
    first = start + 1 if count else start
    return f"{first}" if count == 1 else f"{first},{count}"


def compare(old: bytes | None, new: bytes | None, path: str) -> Compared:
    """The hunks from `old` to `new` (None: absent), or why there are none."""
    a, b = old or b"", new or b""
    if b"\x00" in a[:8192] or b"\x00" in b[:8192]:
        return Compared([], binary=True, note="binary file")
    if max(len(a), len(b)) > MAX_DIFF_BYTES:
        return Compared([], too_big=True, note=f"too large to compare ({max(len(a), len(b)):,} bytes)")
    old_lines, new_lines = _lines(a), _lines(b)
    if max(len(old_lines), len(new_lines)) > MAX_DIFF_LINES:
        return Compared(
            [], too_big=True, note=f"too many lines to compare ({max(len(old_lines), len(new_lines)):,})"
        )
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    out = Compared([])
    total = 0
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        hunk = _hunk(group, old_lines, new_lines)
        total += len(hunk.diff)
        if total > MAX_DIFF_CHARS:
            out.too_big = True
            out.note = f"diff cut at {MAX_DIFF_CHARS:,} characters"
            break
        out.hunks.append(hunk)
    if not out.hunks and not out.note and new is not None and not b:
        out.note = "empty file" if old is None else None
    return out


def _hunk(group: list[tuple[str, int, int, int, int]], old: list[bytes], new: list[bytes]) -> Hunk:
    i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
    body = [f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@"]
    added = removed = 0
    for tag, a1, a2, b1, b2 in group:
        if tag == "equal":
            for line in old[a1:a2]:
                body += _show(" ", line)
            continue
        for line in old[a1:a2]:
            body += _show("-", line)
            removed += 1
        for line in new[b1:b2]:
            body += _show("+", line)
            added += 1
    text = "\n".join(body)
    digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()
    return Hunk(digest, text, added, removed, tuple(group))


def unapply(old: bytes | None, new: bytes, hunk: Hunk) -> bytes:
    """`new` with `hunk`'s region as it was in `old`; every other line stays as it is now."""
    old_lines, new_lines = _lines(old or b""), _lines(new)
    start, end = hunk.ops[0][3], hunk.ops[-1][4]
    middle: list[bytes] = []
    for tag, a1, a2, b1, b2 in hunk.ops:
        middle += new_lines[b1:b2] if tag == "equal" else old_lines[a1:a2]
    return b"".join(new_lines[:start] + middle + new_lines[end:])
