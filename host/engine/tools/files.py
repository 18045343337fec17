"""File tools: read_file, write_file, edit_file, list_dir (all confined to the session's cwd)."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import secrets
from pathlib import Path
from typing import Any

from pydantic import Field

from contract.filechange import FileChange
from host.engine.tools.base import Snapshot, ToolContext, ToolOutput
from host.engine.tools.changes import describe, snapshot
from host.engine.tools.common import (
    CLOEXEC,
    Args,
    BaseTool,
    PathText,
    ToolError,
    display,
    open_inside,
    open_regular,
    resolve_inside,
)
from host.engine.tools.image import looks_like_image, read_image
from host.engine.tools.reach import CodeIntel, ImageSupport
from host.workers import TOOL_WORKERS

log = logging.getLogger(__name__)

DIRECTORY = getattr(os, "O_DIRECTORY", 0)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

DEFAULT_READ_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_READ_CHARS = 100_000
MAX_LIST_ENTRIES = 1000
MAX_EDIT_BYTES = 20_000_000


class ReadFileArgs(Args):
    path: PathText = Field(
        description="File path, relative to the working directory (or absolute inside it)."
    )
    offset: int | None = Field(default=None, ge=1, description="First line to read (1-based). Default 1.")
    limit: int | None = Field(
        default=None, ge=1, le=10_000, description=f"Number of lines to read. Default {DEFAULT_READ_LINES}."
    )


class ReadFileTool(BaseTool):
    name = "read_file"
    description = (
        "Read a text file. Lines are returned numbered like `cat -n` (the number and tab are not part"
        " of the file). Use offset/limit to page through long files."
    )
    Arguments = ReadFileArgs

    def __init__(self, images: ImageSupport | None = None) -> None:
        super().__init__()
        self._images = images
        """Given: an image file goes to the model as an image (host/engine/tools/image.py)."""

    async def execute(self, args: ReadFileArgs, ctx: ToolContext) -> ToolOutput:
        path = resolve_inside(ctx.cwd, args.path)
        if self._images is not None and await TOOL_WORKERS.run(_image_file, ctx.cwd, path):
            return await read_image(self._images, args.path, ctx)
        return await TOOL_WORKERS.run(self._read, ctx.cwd, path, args.offset or 1, args.limit)

    def _read(self, cwd: Path, path: Path, offset: int, limit: int | None) -> ToolOutput:
        shown = display(cwd, path)
        if not path.exists():
            raise ToolError(f"File not found: {shown}", "NOT_FOUND")
        if path.is_dir():
            raise ToolError(f"{shown} is a directory; use list_dir.", "IS_DIRECTORY")
        fd = open_regular(cwd, path, shown)  # the descriptor is checked, not the path; no FIFO hang
        with os.fdopen(fd, "rb") as raw:
            binary = b"\x00" in raw.read(8192)
            raw.seek(0)
            if binary:
                raise ToolError(f"{shown} looks like a binary file; not shown.", "BINARY_FILE")
            return self._lines(
                shown, io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline=""), offset, limit
            )

    def _lines(self, shown: str, fh: io.TextIOWrapper, offset: int, limit: int | None) -> ToolOutput:
        count = limit or DEFAULT_READ_LINES
        out: list[str] = []
        size = 0
        total = 0
        cut_by_size = False
        for number, line in enumerate(fh, start=1):
            total = number
            if number < offset or len(out) >= count or cut_by_size:
                continue
            text = line.rstrip("\r\n")
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + f"… [line cut, {len(text)} characters]"
            entry = f"{number:6}\t{text}"
            if size + len(entry) > MAX_READ_CHARS:
                cut_by_size = True
                continue
            out.append(entry)
            size += len(entry) + 1
        if total == 0:
            return ToolOutput(f"(empty file: {shown})")
        if offset > total:
            raise ToolError(
                f"{shown} has only {total} lines; offset {offset} is past the end.", "BAD_ARGUMENTS"
            )
        last = offset + len(out) - 1
        text = "\n".join(out)
        if last < total:
            text += f"\n\n(showing lines {offset}-{last} of {total}; use offset={last + 1} to read on)"
        return ToolOutput(text)


def _image_file(cwd: Path, path: Path) -> bool:
    """Whether `path` is a regular file whose first bytes are an image's."""
    if not path.is_file():
        return False
    try:
        fd = open_regular(cwd, path, str(path))
    except (ToolError, OSError):
        return False
    with os.fdopen(fd, "rb") as fh:
        return looks_like_image(fh.read(16))


class WriteFileArgs(Args):
    path: PathText = Field(description="File path, relative to the working directory.")
    content: str = Field(description="The complete new content of the file.")


class WriteFileTool(BaseTool):
    name = "write_file"
    description = "Create or overwrite a file with the given content (parent directories are created)."
    needs_approval = True
    Arguments = WriteFileArgs

    def __init__(self, code: CodeIntel | None = None) -> None:
        super().__init__()
        self._code = code
        """Given: the file's new errors from its language server join the result."""

    async def execute(self, args: WriteFileArgs, ctx: ToolContext) -> ToolOutput:
        path = resolve_inside(ctx.cwd, args.path)
        shown = display(ctx.cwd, path)
        data = args.content.encode("utf-8")
        before = await TOOL_WORKERS.run(snapshot, ctx.cwd, path, shown)
        if ctx.checkpoint is not None:
            await ctx.checkpoint(shown, before)
        await TOOL_WORKERS.run(write_atomic, ctx.cwd, path, data)
        change = await TOOL_WORKERS.run(describe, shown, before, data)
        verb = "Overwrote" if before.state is not None else "Created"
        text = await with_diagnostics(self._code, f"{verb} {shown} ({len(data)} bytes).", path, ctx)
        return ToolOutput(text, change=change)

    def preview(self, arguments: dict[str, Any], cwd: Path) -> FileChange | None:
        """The diff this call would write, against the file as it is now (blocking)."""
        args = self.Arguments.model_validate(arguments)
        path = resolve_inside(cwd, args.path)
        shown = display(cwd, path)
        return describe(shown, snapshot(cwd, path, shown), args.content.encode("utf-8"))


async def with_diagnostics(code: CodeIntel | None, text: str, path: Path, ctx: ToolContext) -> str:
    """`text` and, when a language server serves the file, the errors the write introduced
    (docs/decisions.md, "Language servers"); a server that fails changes nothing."""
    if code is None:
        return text
    try:
        found = await code.diagnostics(ctx.cwd, path, ctx.sandbox)
    except Exception as exc:  # the write succeeded: a server's trouble is not the tool's
        log.info("no diagnostics for %s: %s", path, exc)
        return text
    return f"{text}\n\n{found}" if found else text


def write_atomic(cwd: Path, path: Path, data: bytes) -> None:
    """Writes via a temporary file and rename, keeping an existing file's permissions.

    Everything happens relative to a descriptor of the parent directory whose real location was
    checked to be inside the session root, so a component swapped for a symlink in the meantime
    cannot redirect the write (docs/threat-model.md).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    parent = open_inside(cwd, path.parent, os.O_RDONLY | DIRECTORY)
    try:
        try:
            mode: int | None = os.stat(path.name, dir_fd=parent, follow_symlinks=False).st_mode & 0o7777
        except FileNotFoundError:
            mode = None
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        tmp = f".{path.name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600, dir_fd=parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                os.fchmod(fh.fileno(), mode)
            os.replace(tmp, path.name, src_dir_fd=parent, dst_dir_fd=parent)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=parent)
            raise
    finally:
        os.close(parent)


class EditFileArgs(Args):
    path: PathText = Field(description="File path, relative to the working directory.")
    old_string: str = Field(min_length=1, description="Exact text to replace (must match the file exactly).")
    new_string: str = Field(description="Replacement text.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence; otherwise old_string must occur exactly once."
    )


class EditFileTool(BaseTool):
    name = "edit_file"
    description = (
        "Replace an exact string in a file. Fails when old_string is not found, or when it occurs more"
        " than once and replace_all is false (add surrounding lines to make it unique)."
    )
    needs_approval = True
    Arguments = EditFileArgs

    def __init__(self, code: CodeIntel | None = None) -> None:
        super().__init__()
        self._code = code
        """Given: the file's new errors from its language server join the result."""

    async def execute(self, args: EditFileArgs, ctx: ToolContext) -> ToolOutput:
        path = resolve_inside(ctx.cwd, args.path)
        shown = display(ctx.cwd, path)
        before = await TOOL_WORKERS.run(snapshot, ctx.cwd, path, shown)
        data, count = _edited(shown, before, args)
        if ctx.checkpoint is not None:
            await ctx.checkpoint(shown, before)
        await TOOL_WORKERS.run(write_atomic, ctx.cwd, path, data)
        change = await TOOL_WORKERS.run(describe, shown, before, data)
        plural = "occurrence" if count == 1 else "occurrences"
        text = await with_diagnostics(self._code, f"Replaced {count} {plural} in {shown}.", path, ctx)
        return ToolOutput(text, change=change)

    def preview(self, arguments: dict[str, Any], cwd: Path) -> FileChange | None:
        """The diff this call would write, or None when it would fail (blocking)."""
        args = self.Arguments.model_validate(arguments)
        path = resolve_inside(cwd, args.path)
        shown = display(cwd, path)
        before = snapshot(cwd, path, shown)
        try:
            data, _ = _edited(shown, before, args)
        except ToolError:
            return None
        return describe(shown, before, data)


def _edited(shown: str, before: Snapshot, args: EditFileArgs) -> tuple[bytes, int]:
    """The file's new content and how many replacements made it; ToolError when it cannot."""
    if args.old_string == args.new_string:
        raise ToolError("old_string and new_string are identical; nothing to change.", "BAD_ARGUMENTS")
    if before.state is None:
        raise ToolError(f"File not found: {shown}", "NOT_FOUND")
    if before.data is None or before.state.size > MAX_EDIT_BYTES:
        raise ToolError(f"{shown} is too large to edit here.", "FILE_TOO_LARGE")
    try:
        text = before.data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{shown} is not UTF-8 text; not edited.", "BINARY_FILE") from None
    count = text.count(args.old_string)
    if count == 0:
        raise ToolError(f"old_string was not found in {shown} (it must match exactly).", "NOT_FOUND")
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {shown}; include more surrounding text to make it"
            " unique, or set replace_all to true.",
            "AMBIGUOUS",
        )
    return text.replace(args.old_string, args.new_string).encode("utf-8"), count


class ListDirArgs(Args):
    path: PathText | None = Field(
        default=None, description="Directory to list; default the working directory."
    )


class ListDirTool(BaseTool):
    name = "list_dir"
    description = "List a directory: sub-directories end with '/', symlinks are marked with ' -> target'."
    Arguments = ListDirArgs

    async def execute(self, args: ListDirArgs, ctx: ToolContext) -> ToolOutput:
        path = resolve_inside(ctx.cwd, args.path)
        return await TOOL_WORKERS.run(self._list, ctx.cwd, path)

    def _list(self, cwd: Path, path: Path) -> ToolOutput:
        shown = display(cwd, path)
        if not path.exists():
            raise ToolError(f"Directory not found: {shown}", "NOT_FOUND")
        if not path.is_dir():
            raise ToolError(f"{shown} is a file, not a directory.", "NOT_A_DIRECTORY")
        fd = open_inside(cwd, path, os.O_RDONLY | DIRECTORY)
        try:
            with os.scandir(fd) as scan:
                entries = sorted(scan, key=lambda e: (not e.is_dir(follow_symlinks=False), e.name))
            links = {
                e.name: os.readlink(e.name, dir_fd=fd) for e in entries[:MAX_LIST_ENTRIES] if e.is_symlink()
            }
        finally:
            os.close(fd)
        lines = []
        for entry in entries[:MAX_LIST_ENTRIES]:
            if entry.is_symlink():
                lines.append(f"{entry.name} -> {links[entry.name]}")
            elif entry.is_dir():
                lines.append(f"{entry.name}/")
            else:
                lines.append(entry.name)
        if not lines:
            return ToolOutput(f"{shown}/ is empty.")
        header = f"{shown}/ ({len(entries)} entries)"
        if len(entries) > MAX_LIST_ENTRIES:
            lines.append(f"… {len(entries) - MAX_LIST_ENTRIES} more entries not shown")
        return ToolOutput(header + "\n" + "\n".join(lines))
