"""What every tool shares: argument validation, path confinement, blocking work off the loop."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError

from host.engine.sandbox import secret_values
from host.engine.tools.base import ToolContext, ToolOutput
from host.textsafe import clean_text
from host.workers import TOOL_WORKERS

T = TypeVar("T")

SKIP_DIRS = frozenset({".git", ".hg", ".svn"})
"""Version-control internals that directory walks (glob, grep) never enter."""


class ToolError(Exception):
    """A failure the model should see as an error result (never a crash)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class Args(BaseModel):
    """Base for tool arguments: unknown fields are rejected so a misspelt name is reported."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


NUL_IN_PATH = "a path cannot contain a NUL character (\\0): no file name holds one; send it without"


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise PydanticCustomError("nul_in_path", NUL_IN_PATH)
    return value


PathText = Annotated[str, AfterValidator(_no_nul)]
"""A tool argument naming a file, a folder or a path pattern: a NUL in it is BAD_ARGUMENTS, found
before the hooks and the permission gate read it as a path (docs/architecture.md, "Tools")."""


class BaseTool:
    """A tool with pydantic-validated arguments; `execute` may raise `ToolError`."""

    name: ClassVar[str]
    description: ClassVar[str]
    needs_approval: ClassVar[bool] = False
    parallel: ClassVar[bool] = False
    """Calls of this tool in one step run at the same time (they bound themselves)."""
    Arguments: ClassVar[type[Args]]

    def __init__(self) -> None:
        self.parameters: dict[str, Any] = json_schema(self.Arguments)

    def __repr__(self) -> str:
        return f"<tool {self.name}>"

    def check(self, arguments: dict[str, Any]) -> ToolOutput | None:
        """The BAD_ARGUMENTS result when `arguments` do not validate (None: they do). The turn
        asks before the hooks and the permission gate see them, so a call the tool would refuse
        anyway is never put to the person, nor read as a path by the gate."""
        try:
            self.Arguments.model_validate(arguments)
        except ValidationError as exc:
            return ToolOutput(bad_arguments(self.name, exc, self.parameters), True, "BAD_ARGUMENTS")
        return None

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            args = self.Arguments.model_validate(arguments)
        except ValidationError as exc:
            return ToolOutput(bad_arguments(self.name, exc, self.parameters), True, "BAD_ARGUMENTS")
        try:
            output = await self.execute(args, ctx)
        except ToolError as exc:
            output = ToolOutput(str(exc), True, exc.code)
        except OSError as exc:
            output = ToolOutput(f"{self.name} failed: {exc.strerror or exc}", True, "IO_ERROR")
        return safe_output(output)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutput:
        raise NotImplementedError


def argument_refusal(tool: Any, arguments: dict[str, Any]) -> ToolOutput | None:
    """BAD_ARGUMENTS for a call whose arguments its tool would refuse (`check`), or — any other
    tool, an MCP one — whose `path` holds a NUL: the permission gate reads `path` as a path, and a
    NUL there failed the whole turn (`ValueError: embedded null byte`) instead of one call."""
    if isinstance(tool, BaseTool):
        return tool.check(arguments)
    raw = arguments.get("path")
    if isinstance(raw, str) and "\x00" in raw:
        name = getattr(tool, "name", "the tool")
        return ToolOutput(f"Invalid arguments for {name}:\n- path: {NUL_IN_PATH}.", True, "BAD_ARGUMENTS")
    return None


def safe_output(output: ToolOutput) -> ToolOutput:
    """What a tool returns, fit for the log, the streams and the model: valid Unicode (a file
    name with a non-UTF-8 byte shows U+FFFD) and no known secret (docs/threat-model.md)."""
    content = secret_values.redact(clean_text(output.content))
    change = output.change
    if change is not None and change.diff is not None:
        diff = secret_values.redact(change.diff)
        if diff is not change.diff:
            change = change.model_copy(update={"diff": diff})
    if content is output.content and change is output.change:
        return output
    return dataclasses.replace(output, content=content, change=change)


def bad_arguments(name: str, exc: ValidationError, schema: dict[str, Any]) -> str:
    problems = []
    for error in exc.errors()[:8]:
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        problems.append(f"- {where}: {error['msg']}")
    fields = ", ".join(schema.get("properties", {}))
    return f"Invalid arguments for {name}:\n" + "\n".join(problems) + f"\nExpected fields: {fields}."


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema with `$ref`s inlined and titles dropped (simpler for models)."""
    schema = model.model_json_schema(by_alias=True)
    defs = schema.pop("$defs", {})

    def clean(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = defs[node["$ref"].rsplit("/", 1)[-1]]
                extra = {k: v for k, v in node.items() if k != "$ref"}
                return clean({**target, **extra})
            branches = node.get("anyOf")
            if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
                # `X | None = None` reads better to a model as an optional X.
                other = next(b for b in branches if b != {"type": "null"})
                rest = {k: v for k, v in node.items() if k != "anyOf" and not (k == "default" and v is None)}
                return clean({**other, **rest})
            return {k: clean(v) for k, v in node.items() if k != "title" or not isinstance(v, str)}
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node

    result: dict[str, Any] = clean(schema)
    return result


def resolve_inside(cwd: Path, raw: str | None, *, what: str = "path") -> Path:
    """`raw` (relative to cwd, or absolute) resolved with symlinks; PATH_ESCAPE when outside cwd."""
    root = cwd.resolve()
    text = (raw or ".").strip() or "."
    if "\x00" in text:
        raise ToolError(f"The {what} contains a NUL character.", "BAD_ARGUMENTS")
    candidate = Path(text).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = candidate.resolve()
    if not is_inside(root, resolved):
        raise ToolError(
            f"The {what} {text!r} is outside the session directory {root} (paths, including symlinks,"
            " must stay inside it).",
            "PATH_ESCAPE",
        )
    return resolved


def is_inside(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


NONBLOCK = getattr(os, "O_NONBLOCK", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def opened_path(fd: int, fallback: Path) -> Path:
    """Where an open descriptor really is (Linux: /proc/self/fd), else `fallback` resolved."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return fallback.resolve()


def open_inside(cwd: Path, path: Path, flags: int = os.O_RDONLY) -> int:
    """Open `path` (already resolved by `resolve_inside`) and check where the descriptor landed.

    Checking a path and then opening it leaves a window in which a component can be swapped for
    a symlink to the outside; checking the opened descriptor closes it. Non-blocking, so a FIFO
    never hangs the open. PATH_ESCAPE (descriptor closed) when it is outside the session root.
    """
    fd = os.open(path, flags | NONBLOCK | CLOEXEC)
    if not is_inside(cwd.resolve(), opened_path(fd, path)):
        os.close(fd)
        raise ToolError(f"The path {path} left the session directory while it was opened.", "PATH_ESCAPE")
    return fd


def display(root: Path, path: Path) -> str:
    """A path as shown to the model: relative to the session directory."""
    try:
        rel = path.relative_to(root.resolve())
    except ValueError:
        return str(path)
    return rel.as_posix() or "."


def open_regular(cwd: Path, path: Path, shown: str) -> int:
    """`open_inside` for reading a regular file; NOT_A_FILE for a FIFO, a device or a socket."""
    fd = open_inside(cwd, path)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ToolError(f"{shown} is not a regular file (a pipe, device or socket); not read.", "NOT_A_FILE")
    os.set_blocking(fd, True)
    return fd


async def run_blocking(fn: Callable[[threading.Event], T]) -> T:
    """Runs `fn(stop)` on the tool workers; cancelling the caller sets `stop` so `fn` can quit."""
    stop = threading.Event()
    try:
        return await TOOL_WORKERS.run(fn, stop)
    except asyncio.CancelledError:
        stop.set()
        raise


def walk(root: Path, stop: threading.Event | None = None, inside: Path | None = None) -> Any:
    """(dirpath, dirnames, filenames) below `root`, sorted, not following symlinks, skipping VCS
    dirs, and (given `inside`) skipping a directory that was swapped for a way out meanwhile."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        if stop is not None and stop.is_set():
            return
        if inside is not None and not is_inside(inside, Path(os.path.realpath(dirpath))):
            dirnames[:] = []
            continue
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        yield Path(dirpath), dirnames, sorted(filenames)
