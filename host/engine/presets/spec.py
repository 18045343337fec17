"""One agent preset read from its directory: `preset.toml`, an optional `SYSTEM.md`, `skills/`.

Reading never raises for a bad preset: a directory that cannot run a session comes back with a
one-line `broken` reason (it still holds its id and can be removed). See docs/decisions.md,
"Presets, skills and commands".
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contract.presets import PRESET_ID_PATTERN, Trust
from contract.sessions import ModelSelection

PRESET_FILE = "preset.toml"
SYSTEM_FILE = "SYSTEM.md"
SKILLS_DIR = "skills"
MAX_PRESET_BYTES = 64 * 1024
MAX_SYSTEM_BYTES = 256 * 1024
ID_RE = re.compile(PRESET_ID_PATTERN)

Sandbox = Literal["read-only", "workspace-write", "danger-full-access"]
Approval = Literal["ask", "never"]


class PresetModel(BaseModel):
    """`model = {provider, model, reasoningEffort?}` in preset.toml."""

    model_config = ConfigDict(extra="forbid")
    provider: str = Field(min_length=1, max_length=100)
    model: str = Field(min_length=1, max_length=200)
    reasoningEffort: str | None = Field(default=None, min_length=1, max_length=40)


class PresetFile(BaseModel):
    """The schema of preset.toml; an unknown key is an error (a typo must not be ignored)."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=2000)
    order: float | None = None
    tools: list[str] | None = Field(default=None, max_length=100)
    approval: Approval | None = None
    sandbox: Sandbox | None = None
    model: PresetModel | None = None


@dataclass(frozen=True)
class PresetSpec:
    id: str
    trust: Trust
    directory: Path
    name: str | None = None
    description: str | None = None
    order: float | None = None
    tools: tuple[str, ...] | None = None
    """The allow-list; None = every tool."""
    approval: Approval | None = None
    sandbox: Sandbox | None = None
    model: ModelSelection | None = None
    system: str | None = None
    """SYSTEM.md's text; None = the default prompt."""
    broken: str | None = None

    @property
    def skills_dir(self) -> Path:
        return self.directory / SKILLS_DIR

    @property
    def file(self) -> Path:
        return self.directory / PRESET_FILE


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "unknown error"
    return line[:300]


def _issues(exc: ValidationError) -> str:
    first = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "preset.toml"
    return f"preset.toml: {where}: {first.get('msg', 'invalid')}"


def _read_text(path: Path, limit: int) -> str:
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path.name} is larger than {limit // 1024} KiB")
    return data.decode("utf-8")


def read_preset(directory: Path, trust: Trust, known_tools: Collection[str]) -> PresetSpec:
    """The preset in `directory` (its name is the id); `broken` says why it cannot run."""
    pid = directory.name

    def broken(reason: str) -> PresetSpec:
        return PresetSpec(id=pid, trust=trust, directory=directory, broken=reason)

    path = directory / PRESET_FILE
    if not path.is_file():
        return broken("preset.toml is missing (the folder still holds the id)")
    try:
        text = _read_text(path, MAX_PRESET_BYTES)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return broken(f"preset.toml cannot be read: {_first_line(str(exc))}")
    try:
        parsed = PresetFile.model_validate(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        return broken(f"preset.toml is not valid TOML: {_first_line(str(exc))}")
    except ValidationError as exc:
        return broken(_issues(exc))
    if parsed.tools is not None:
        unknown = [
            t for t in parsed.tools if t not in known_tools and not t.startswith("mcp__")
        ]  # MCP: globs
        if unknown:
            return broken(
                f"preset.toml: tools: unknown tool {unknown[0]!r} (known: {', '.join(sorted(known_tools))})"
            )
    system = None
    system_path = directory / SYSTEM_FILE
    if system_path.exists():
        try:
            system = _read_text(system_path, MAX_SYSTEM_BYTES)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            return broken(f"SYSTEM.md cannot be read: {_first_line(str(exc))}")
        if not system.strip():
            system = None
    model = None
    if parsed.model is not None:
        model = ModelSelection(
            provider=parsed.model.provider,
            model=parsed.model.model,
            reasoning_effort=parsed.model.reasoningEffort,
        )
    return PresetSpec(
        id=pid,
        trust=trust,
        directory=directory,
        name=parsed.name,
        description=parsed.description,
        order=parsed.order,
        tools=tuple(dict.fromkeys(parsed.tools)) if parsed.tools is not None else None,
        approval=parsed.approval,
        sandbox=parsed.sandbox,
        model=model,
        system=system,
    )


def valid_id(pid: str) -> bool:
    return bool(ID_RE.match(pid)) and len(pid) <= 100
