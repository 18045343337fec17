"""What `@` attaches to a prompt: a file's content (cut at a cap) or a folder's listing, as a
text part the model reads and clients show as a chip (docs/architecture.md, "The @ finder").

A path must name something inside the session's folder once every symlink is resolved; a FIFO,
a device or a socket is refused before it is opened (opening a FIFO would block)."""

from __future__ import annotations

import os
import posixpath
import re
import stat

from contract.content import Attached, TextBlock
from host.engine.errors import AttachmentError
from host.engine.files.finder.index import FolderIndex, within

SNIFF_BYTES = 8192
"""A NUL byte in a file's first bytes marks it binary (git's own test)."""


def clean_path(path: str) -> str:
    """`path` as a plain relative path inside the folder, or AttachmentError."""
    p = path.replace("\\", "/").strip()
    norm = posixpath.normpath(p) if p else ""
    if not p or "\0" in p or p.startswith("/") or re.match(r"^[A-Za-z]:", p) or norm.split("/")[0] == "..":
        raise AttachmentError(f"{path!r} is not a path inside the session's folder")
    return "" if norm == "." else norm


def resolve(root: str, path: str) -> tuple[str, str, os.stat_result]:
    """(its real path relative to `root`, real path, its stat) of `path` under the real folder
    `root` (blocking: run it on a worker thread)."""
    rel = clean_path(path)
    try:
        real = os.path.realpath(os.path.join(root, rel))
        st = os.stat(real)
    except OSError as exc:
        raise AttachmentError(f"{rel or '.'}: {exc.strerror or 'cannot be read'}") from exc
    if not within(root, real):
        raise AttachmentError(f"{rel} leads outside the session's folder")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise AttachmentError(f"{rel} is not a regular file or folder")
    inner = os.path.relpath(real, root).replace(os.sep, "/")
    return ("" if inner == "." else inner), real, st


def fence_for(text: str) -> str:
    """A Markdown code fence longer than any backtick run in `text` (so the text cannot close it)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def file_block(root: str, rel: str, real: str, cap: int) -> TextBlock:
    """A file's first `cap` bytes (blocking: run it on a worker thread). Where the descriptor
    landed is checked, as the file tools do (docs/threat-model.md): a folder swapped for a
    symlink between the check and the open does not escape."""
    try:
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:  # it changed since it was resolved (became a symlink, went away)
        raise AttachmentError(f"{rel}: {exc.strerror or 'cannot be read'}") from exc
    try:
        if not within(root, _landed(fd, real)):
            raise AttachmentError(f"{rel} left the session's folder while it was opened")
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise AttachmentError(f"{rel} is not a regular file")
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    size = max(st.st_size, len(data))
    if b"\0" in data[:SNIFF_BYTES]:
        meta = Attached(kind="file", path=rel, size=size, binary=True)
        said = f"`{rel}` is a binary file ({size:,} bytes); its content is not attached."
        return TextBlock(text=said, attached=meta)
    cut = len(data) > cap
    body = data[:cap].decode("utf-8", "ignore" if cut else "replace")
    fence = fence_for(body)
    head = f"Contents of `{rel}`" + (f" (its first {cap:,} of {size:,} bytes)" if cut else "") + ":"
    meta = Attached(kind="file", path=rel, size=size, truncated=cut)
    return TextBlock(text=f"{head}\n{fence}\n{body}\n{fence}", attached=meta)


def _landed(fd: int, fallback: str) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # no /proc: the path resolved again (a narrower window, not none)
        return os.path.realpath(fallback)


def folder_block(rel: str, index: FolderIndex, cap: int) -> TextBlock:
    """A folder's entries as the index has them (ignored files left out), alphabetically."""
    prefix = f"{rel}/" if rel else ""
    inside = sorted(e for e in index.entries if e.startswith(prefix) and e != prefix)
    shown = inside[:cap]
    name = f"{rel}/" if rel else "the session's folder"
    head = f"Listing of `{name}` ({len(inside):,} entries"
    head += f", the first {cap:,} shown" if len(inside) > cap else ""
    head += "; ignored files left out):"
    meta = Attached(kind="folder", path=rel or ".", size=len(inside), truncated=len(inside) > cap)
    return TextBlock(text="\n".join([head, *shown]), attached=meta)
