"""Search tools: glob (file names) and grep (file contents, Python regular expressions)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading

from pydantic import Field

from host import procs
from host.engine.sandbox.secret_values import child_environment
from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.common import (
    Args,
    BaseTool,
    PathText,
    ToolError,
    display,
    resolve_inside,
    run_blocking,
    walk,
)

MAX_GLOB_RESULTS = 500
MAX_GREP_MATCHES = 200
MAX_GREP_LINE = 300
MAX_GREP_FILE_BYTES = 10_000_000
GREP_TIME_BUDGET = 20.0
"""Soft limit: the worker reports the matches found so far."""
GREP_HARD_LIMIT = 30.0
"""Hard limit: the worker process is killed (a catastrophic pattern never returns by itself)."""
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
    pattern: PathText = Field(description="Glob such as '**/*.py' or 'src/*.ts' ('**' spans directories).")
    path: PathText | None = Field(
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
            for dirpath, _dirs, files in walk(start, stop, inside=root):
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
    path: PathText | None = Field(
        default=None, description="File or directory to search; default the working directory."
    )
    glob: PathText | None = Field(
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
            re.compile(args.pattern)
        except re.error as exc:
            raise ToolError(f"Invalid regular expression {args.pattern!r}: {exc}", "BAD_ARGUMENTS") from None
        target = resolve_inside(ctx.cwd, args.path)
        if not target.exists():
            raise ToolError(f"Path not found: {display(ctx.cwd, target)}", "NOT_FOUND")
        request: dict[str, object] = {
            "root": str(ctx.cwd.resolve()),
            "target": str(target),
            "pattern": args.pattern,
            "max_matches": MAX_GREP_MATCHES,
            "max_line": MAX_GREP_LINE,
            "max_file_bytes": MAX_GREP_FILE_BYTES,
            "budget": GREP_TIME_BUDGET,
        }
        if args.glob:
            glob = _check_pattern(args.glob)
            request["name_regex"] = glob_regex(glob).pattern
            request["by_path"] = "/" in glob
        return ToolOutput(await run_helper("grep_worker", request, GREP_HARD_LIMIT))


async def run_helper(name: str, request: dict[str, object], limit: float) -> str:
    """Run a helper process on one JSON request; killed at `limit` seconds or on cancel."""
    proc = await asyncio.create_subprocess_exec(
        *procs.command(name),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=child_environment(),
        start_new_session=True,
    )
    payload = json.dumps(request, ensure_ascii=True).encode("ascii")
    try:
        out, err = await asyncio.wait_for(proc.communicate(payload), limit)
    except TimeoutError:
        raise ToolError(
            f"The search took longer than {limit:g}s and was stopped. The pattern may backtrack"
            " catastrophically (nested quantifiers such as (a+)+), or the tree is too large:"
            " simplify the pattern, or narrow the path or glob.",
            "TIMEOUT",
        ) from None
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(proc.wait(), 5)
    if proc.returncode != 0:
        reason = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        raise ToolError(f"The search failed: {reason[0][:300]}", "TOOL_FAILED")
    return str(json.loads(out)["text"])
