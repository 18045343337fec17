"""`git diff -U0` output as hunks a person can stage, unstage or discard one by one
(docs/decisions/review-pane.md).

Pure functions on bytes, no process here. With no context lines every hunk git prints is the
smallest run of changed lines (a run of removed lines followed by the lines that replace them),
so two edits one unchanged line apart stay two hunks — `git add -p`'s split, done up front. A
hunk is named by the SHA-256 of its path, its side and its exact text (the `@@` line with its
line numbers included): a view that is out of date never names a different region.

`patch_for` puts a file's header back in front of chosen hunks so that `git apply --cached
--unidiff-zero` stages exactly them; `unapply` puts a worktree file's lines back as the hunks
found them, byte for byte, or refuses when the file no longer holds what they say.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

HUNK_HEAD = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_EOL = b"\\ No newline at end of file"
MAX_SYNTH_BYTES = 1 << 20
"""An untracked file larger than this shows as a file without lines (it is staged whole)."""


@dataclass(frozen=True)
class PatchHunk:
    id: str
    path: str
    side: str
    header: str
    raw: bytes
    """The `@@` line and its body, exactly as git printed them (each line ending in `\\n`)."""
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    added: int
    removed: int

    @property
    def diff(self) -> str:
        return self.raw.decode("utf-8", "replace").rstrip("\n")

    def lines(self, prefix: bytes) -> list[bytes]:
        """The hunk's `-` (or `+`) lines as file bytes: each with its `\\n`, except the one a
        `\\ No newline at end of file` follows."""
        out: list[bytes] = []
        rows = self.raw.split(b"\n")[1:]
        for i, row in enumerate(rows):
            if not row.startswith(prefix):
                continue
            last = i + 1 < len(rows) and rows[i + 1].startswith(NO_EOL)
            out.append(row[1:] if last else row[1:] + b"\n")
        return out


@dataclass
class FilePatch:
    """One `diff --git` section: its header lines and its hunks."""

    head: bytes
    hunks: list[PatchHunk] = field(default_factory=list)
    binary: bool = False
    new_file: bool = False
    deleted_file: bool = False


def hunk_id(path: str, side: str, raw: bytes) -> str:
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape") + b"\0" + side.encode() + b"\0" + raw)
    return digest.hexdigest()


def _count(text: bytes | None) -> int:
    return 1 if text is None else int(text)


def _hunk(path: str, side: str, raw: bytes) -> PatchHunk:
    first, _, body = raw.partition(b"\n")
    m = HUNK_HEAD.match(first)
    assert m is not None
    rows = body.split(b"\n")
    added = sum(1 for r in rows if r.startswith(b"+"))
    removed = sum(1 for r in rows if r.startswith(b"-"))
    return PatchHunk(
        id=hunk_id(path, side, raw),
        path=path,
        side=side,
        header=m.group(0).decode("utf-8", "replace"),
        raw=raw,
        old_start=int(m.group(1)),
        old_count=_count(m.group(2)),
        new_start=int(m.group(3)),
        new_count=_count(m.group(4)),
        added=added,
        removed=removed,
    )


def sections(out: bytes) -> list[bytes]:
    """`git diff` output cut at each `diff --git` line."""
    parts = re.split(rb"(?m)^(?=diff --git )", out)
    return [p for p in parts if p.startswith(b"diff --git ")]


def parse_section(section: bytes, path: str, side: str) -> FilePatch:
    """One section's header and hunks; `path` is the file's name from `--raw -z` (never parsed
    out of the header, where git may quote it)."""
    if not section.endswith(b"\n"):
        section += b"\n"
    at = re.search(rb"(?m)^@@ ", section)
    head = section if at is None else section[: at.start()]
    out = FilePatch(head=head)
    for line in head.split(b"\n"):
        if line.startswith((b"Binary files ", b"GIT binary patch")):
            out.binary = True
        elif line.startswith(b"new file mode"):
            out.new_file = True
        elif line.startswith(b"deleted file mode"):
            out.deleted_file = True
    if at is None:
        return out
    body = section[at.start() :]
    for chunk in re.split(rb"(?m)^(?=@@ )", body):
        if chunk.startswith(b"@@ "):
            out.hunks.append(_hunk(path, side, chunk))
    return out


@dataclass(frozen=True)
class RawEntry:
    """One record of `git diff --raw -z`: its status letter, path and (rename, copy) source."""

    status: str
    path: str
    old_path: str | None = None


def parse_raw(out: bytes) -> list[RawEntry]:
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    entries: list[RawEntry] = []
    i = 0
    while i < len(fields):
        meta = fields[i]
        i += 1
        if not meta.startswith(":"):
            continue
        letter = meta.split()[-1][:1]
        if letter in "RC":
            old, new = fields[i], fields[i + 1]
            i += 2
            entries.append(RawEntry(letter, new, old))
        else:
            entries.append(RawEntry(letter, fields[i]))
            i += 1
    return entries


def untracked_hunk(path: str, data: bytes) -> PatchHunk | None:
    """The one hunk that adds an untracked text file (None: binary, too large or empty)."""
    if not data or len(data) > MAX_SYNTH_BYTES or b"\0" in data[:8192]:
        return None
    lines = data.split(b"\n")
    last_eol = lines[-1] == b""
    if last_eol:
        lines = lines[:-1]
    body = [b"+" + line for line in lines]
    if not last_eol:
        body.append(NO_EOL)
    count = len(lines)
    first = f"@@ -0,0 +1{'' if count == 1 else f',{count}'} @@".encode()
    return _hunk(path, "untracked", b"\n".join([first, *body]) + b"\n")


def patch_for(head: bytes, hunks: list[PatchHunk]) -> bytes:
    """The file's header and `hunks` (in file order): what `git apply` takes for just them."""
    ordered = sorted(hunks, key=lambda h: (h.old_start, h.new_start))
    return head + b"".join(h.raw for h in ordered)


class Mismatch(Exception):
    """The file does not hold what a hunk says it holds (the view is out of date)."""


def unapply(data: bytes, hunks: list[PatchHunk]) -> bytes:
    """`data` (a worktree file) with each hunk's added lines replaced by the lines it removed,
    checked byte for byte first; Mismatch when any differs. Hunks of an index→worktree diff:
    their new-side numbers are positions in `data`."""
    lines = data.split(b"\n")
    kept = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        kept.append(lines[-1])  # the last line, without its end of line
    for h in sorted(hunks, key=lambda h: h.new_start, reverse=True):
        added, removed = h.lines(b"+"), h.lines(b"-")
        start = h.new_start - 1 if h.new_count else h.new_start
        if len(added) != h.new_count or len(removed) != h.old_count:
            raise Mismatch(h.path)
        if kept[start : start + h.new_count] != added:
            raise Mismatch(h.path)
        kept[start : start + h.new_count] = removed
    return b"".join(kept)
