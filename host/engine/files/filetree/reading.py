"""A file of the session's folder for the Files pane's viewer (docs/decisions.md, "Terminal and
files"): a range of lines (the viewer loads a large file as it scrolls), binary files said so,
images whole for the viewer to show. Blocking: run it on a worker thread.

Limits: a file over 10 MB is read only by range (`too-large` otherwise), and a range's text may
not exceed 1 MB. A file is opened without following it into a pipe (a FIFO never blocks a read).
"""

from __future__ import annotations

import base64
import os
import stat

from contract.file_tree import MAX_IMAGE_BYTES, MAX_RANGE_BYTES, MAX_READ_BYTES, ImageData, ReadValue
from host.engine.errors import NotAFile, TooLarge

SNIFF = 8192
CHUNK = 1 << 16
IMAGES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
}


def _open(target: str, shown: str) -> tuple[int, int]:
    """(fd, size) of a regular file; NotAFile for anything else."""
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError as exc:
        raise NotAFile(shown) from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise NotAFile(shown)
    os.set_blocking(fd, True)
    return fd, info.st_size


def read(target: str, shown: str, start_line: int | None, max_lines: int | None) -> ReadValue:
    """Lines `start_line` … (+`max_lines`) of `target` (the real path of `shown`)."""
    fd, size = _open(target, shown)
    with os.fdopen(fd, "rb") as fh:
        ranged = start_line is not None or max_lines is not None
        mime = IMAGES.get(os.path.splitext(target)[1].lower())
        if mime is not None and size <= MAX_IMAGE_BYTES:
            data = fh.read(MAX_IMAGE_BYTES + 1)
            image = ImageData(mime=mime, data=base64.b64encode(data).decode("ascii"))
            return ReadValue(
                text="",
                start_line=1,
                lines=0,
                total_lines=0,
                truncated=False,
                binary=True,
                size=size,
                image=image,
            )
        head = fh.read(SNIFF)
        if b"\0" in head:
            return ReadValue(
                text="", start_line=1, lines=0, total_lines=0, truncated=False, binary=True, size=size
            )
        if size > MAX_READ_BYTES and not ranged:
            raise TooLarge(shown, size, MAX_READ_BYTES)
        limit = MAX_RANGE_BYTES if ranged else MAX_READ_BYTES
        first = start_line or 1
        last = first + max_lines - 1 if max_lines is not None else None
        kept: list[bytes] = []
        kept_bytes = 0
        line_no = 1  # the line the next byte belongs to
        rest = b""
        data = head
        while True:
            block = rest + data
            lines = block.split(b"\n")
            rest = lines.pop()  # the unfinished last line
            for line in lines:
                if line_no >= first and (last is None or line_no <= last):
                    kept.append(line)
                    kept_bytes += len(line) + 1
                    if kept_bytes > limit:
                        raise TooLarge(shown, kept_bytes, limit)
                line_no += 1
            data = fh.read(CHUNK)
            if not data:
                break
        total = line_no - 1 + (1 if rest else 0)
        if rest and line_no >= first and (last is None or line_no <= last):
            kept.append(rest)
            kept_bytes += len(rest)
            if kept_bytes > limit:
                raise TooLarge(shown, kept_bytes, limit)
    text = b"\n".join(kept).decode("utf-8", "replace")
    shown_last = first + len(kept) - 1
    return ReadValue(
        text=text,
        start_line=first,
        lines=len(kept),
        total_lines=total,
        truncated=shown_last < total,
        binary=False,
        size=size,
    )
