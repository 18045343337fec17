"""What every tool shares: argument validation, path confinement, blocking work off the loop."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from host.engine.tools.base import ToolContext, ToolOutput

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


class BaseTool:
    """A tool with pydantic-validated arguments; `execute` may raise `ToolError`."""

    name: ClassVar[str]
    description: ClassVar[str]
    needs_approval: ClassVar[bool] = False
    Arguments: ClassVar[type[Args]]

    def __init__(self) -> None:
        self.parameters: dict[str, Any] = json_schema(self.Arguments)

    def __repr__(self) -> str:
        return f"<tool {self.name}>"

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            args = self.Arguments.model_validate(arguments)
        except ValidationError as exc:
            return ToolOutput(bad_arguments(self.name, exc, self.parameters), True, "BAD_ARGUMENTS")
        try:
            return await self.execute(args, ctx)
        except ToolError as exc:
            return ToolOutput(str(exc), True, exc.code)
        except OSError as exc:
            return ToolOutput(f"{self.name} failed: {exc.strerror or exc}", True, "IO_ERROR")

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutput:
        raise NotImplementedError


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


def display(root: Path, path: Path) -> str:
    """A path as shown to the model: relative to the session directory."""
    try:
        rel = path.relative_to(root.resolve())
    except ValueError:
        return str(path)
    return rel.as_posix() or "."


def is_binary(path: Path, sample: int = 8192) -> bool:
    with open(path, "rb") as fh:
        return b"\x00" in fh.read(sample)


async def run_blocking(fn: Callable[[threading.Event], T]) -> T:
    """Runs `fn(stop)` in a worker thread; cancelling the caller sets `stop` so `fn` can quit."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(fn, stop)
    except asyncio.CancelledError:
        stop.set()
        raise


def walk(root: Path, stop: threading.Event | None = None) -> Any:
    """(dirpath, dirnames, filenames) below `root`, sorted, not following symlinks, skipping VCS dirs."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        if stop is not None and stop.is_set():
            return
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        yield Path(dirpath), dirnames, sorted(filenames)
