"""Search tools: glob (file names) and grep (file contents, Python regular expressions)."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

from pydantic import Field

from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.common import (
    Args,
    BaseTool,
    ToolError,
    display,
    is_binary,
    is_inside,
    resolve_inside,
    run_blocking,
    walk,
)

MAX_GLOB_RESULTS = 500
MAX_GREP_MATCHES = 200
MAX_GREP_LINE = 300
MAX_GREP_FILE_BYTES = 10_000_000
GREP_TIME_BUDGET = 30.0
WILDCARDS = frozenset("*?[")


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regex over '/'-separated relative paths: `**` spans directories, `*` does not."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def _check_pattern(pattern: str) -> str:
    pattern = pattern.strip()
    if not pattern:
        raise ToolError("The glob pattern is empty.", "BAD_ARGUMENTS")
    if pattern.startswith("/"):
        raise ToolError("Use a relative glob pattern (set `path` to choose the directory).", "BAD_ARGUMENTS")
    if ".." in pattern.split("/"):
        raise ToolError("Glob patterns may not contain '..'.", "PATH_ESCAPE")
    return pattern.removeprefix("./")


def _literal_prefix(pattern: str) -> str:
    parts = pattern.split("/")[:-1]
    prefix: list[str] = []
    for part in parts:
        if WILDCARDS & set(part):
            break
        prefix.append(part)
    return "/".join(prefix)


class GlobArgs(Args):
    pattern: str = Field(description="Glob such as '**/*.py' or 'src/*.ts' ('**' spans directories).")
    path: str | None = Field(
        default=None, description="Directory to search from; default the working directory."
    )


class GlobTool(BaseTool):
    name = "glob"
    description = (
        "Find files whose path (relative to `path`) matches a glob pattern. Returns matching files"
        f" sorted by path, at most {MAX_GLOB_RESULTS}. VCS directories such as .git are skipped."
    )
    Arguments = GlobArgs

    async def execute(self, args: GlobArgs, ctx: ToolContext) -> ToolOutput:
        base = resolve_inside(ctx.cwd, args.path)
        if not base.is_dir():
            raise ToolError(f"Directory not found: {display(ctx.cwd, base)}", "NOT_FOUND")
        pattern = _check_pattern(args.pattern)
        matcher = glob_regex(pattern)
        root = ctx.cwd.resolve()

        def search(stop: threading.Event) -> tuple[list[str], bool]:
            start = base / _literal_prefix(pattern)
            if not start.is_dir() or not start.resolve().is_relative_to(root):
                return [], False
            found: list[str] = []
            for dirpath, _dirs, files in walk(start, stop):
                for name in files:
                    rel = (dirpath / name).relative_to(base).as_posix()
                    if matcher.match(rel):
                        found.append(display(root, dirpath / name))
                        if len(found) > MAX_GLOB_RESULTS:
                            return found[:MAX_GLOB_RESULTS], True
            return found, False

        found, capped = await run_blocking(search)
        if not found:
            return ToolOutput(f"No files match {pattern!r} in {display(root, base)}.")
        text = "\n".join(sorted(found))
        if capped:
            text += f"\n\n(stopped at {MAX_GLOB_RESULTS} files; narrow the pattern)"
        return ToolOutput(text)


class GrepArgs(Args):
    pattern: str = Field(description="Python regular expression (use (?i) for case-insensitive).")
    path: str | None = Field(
        default=None, description="File or directory to search; default the working directory."
    )
    glob: str | None = Field(
        default=None,
        description="Only files matching this glob, e.g. '*.py' (by name) or 'src/**/*.ts' (by path).",
    )


class GrepTool(BaseTool):
    name = "grep"
    description = (
        "Search file contents with a Python regular expression; prints `path:line: text` per matching"
        f" line, at most {MAX_GREP_MATCHES} lines. Binary files and .git are skipped."
    )
    Arguments = GrepArgs

    async def execute(self, args: GrepArgs, ctx: ToolContext) -> ToolOutput:
        try:
            regex = re.compile(args.pattern)
        except re.error as exc:
            raise ToolError(f"Invalid regular expression {args.pattern!r}: {exc}", "BAD_ARGUMENTS") from None
        target = resolve_inside(ctx.cwd, args.path)
        if not target.exists():
            raise ToolError(f"Path not found: {display(ctx.cwd, target)}", "NOT_FOUND")
        name_filter = None
        if args.glob:
            glob = _check_pattern(args.glob)
            name_filter = (glob_regex(glob), "/" in glob)
        root = ctx.cwd.resolve()

        def candidates(stop: threading.Event) -> list[Path]:
            if target.is_file():
                return [target]
            out = []
            for dirpath, _dirs, files in walk(target, stop):
                for name in files:
                    path = dirpath / name
                    if name_filter is not None:
                        matcher, by_path = name_filter
                        subject = path.relative_to(target).as_posix() if by_path else name
                        if not matcher.match(subject):
                            continue
                    out.append(path)
            return out

        def search(stop: threading.Event) -> str:
            matches: list[str] = []
            scanned = skipped = 0
            deadline = time.monotonic() + GREP_TIME_BUDGET
            files = candidates(stop)
            for path in files:
                if stop.is_set() or time.monotonic() > deadline:
                    return _grep_report(matches, scanned, f"stopped after {GREP_TIME_BUDGET:.0f}s")
                try:
                    if path.is_symlink() and not is_inside(root, path.resolve()):
                        continue
                    if path.stat().st_size > MAX_GREP_FILE_BYTES or is_binary(path):
                        skipped += 1
                        continue
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        scanned += 1
                        for number, line in enumerate(fh, start=1):
                            if regex.search(line):
                                text = line.rstrip("\r\n")
                                if len(text) > MAX_GREP_LINE:
                                    text = text[:MAX_GREP_LINE] + "…"
                                matches.append(f"{display(root, path)}:{number}: {text}")
                                if len(matches) >= MAX_GREP_MATCHES:
                                    return _grep_report(
                                        matches, scanned, f"stopped at {MAX_GREP_MATCHES} matches"
                                    )
                except OSError:
                    skipped += 1
            if not matches:
                note = f" ({skipped} binary/large/unreadable files skipped)" if skipped else ""
                return f"No matches for /{args.pattern}/ in {scanned} files{note}."
            return _grep_report(matches, scanned, None)

        return ToolOutput(await run_blocking(search))


def _grep_report(matches: list[str], scanned: int, cut: str | None) -> str:
    text = "\n".join(matches)
    if cut:
        text += f"\n\n({cut}; {scanned} files searched — narrow the pattern, path or glob)"
    return text
