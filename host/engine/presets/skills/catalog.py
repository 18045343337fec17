"""Skill discovery: SKILL.md files under ranked roots, parsed once per file version.

A skill is `<root>/<name>/SKILL.md` or `<root>/<name>.md` (one level deep). Its frontmatter
needs `name` (kebab-case) and `description`; the two invocation flags fail closed (a camel-case
spelling or a value that is not a boolean drops the skill). A file without readable frontmatter
is skipped with a warning. Lower rank wins a duplicate name. See docs/architecture.md, "Skills".
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contract.skills import SKILL_NAME_PATTERN, SkillEntry, SkillWarning
from host.engine.presets.skills.frontmatter import FrontmatterError, parse, split

log = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
MAX_SKILL_BYTES = 512 * 1024
MAX_SKILLS_PER_ROOT = 500
NAME_RE = re.compile(SKILL_NAME_PATTERN)
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})
_CAMEL = ("disableModelInvocation", "modelInvocable", "userInvocable")


@dataclass(frozen=True)
class SkillRoot:
    rank: int
    source: str
    """A short label: `preset`, `project`, `project-agents`, `project-claude`, `user`, …"""
    path: Path


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    body: str
    path: Path
    source: str
    rank: int
    when_to_use: str | None = None
    model_invocable: bool = True
    user_invocable: bool = True
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def base_dir(self) -> Path | None:
        """The folder a directory-form skill's resources sit in (None for a flat `.md`)."""
        return self.path.parent if self.path.name == SKILL_FILE else None

    def entry(self) -> SkillEntry:
        return SkillEntry(
            name=self.name,
            description=self.description,
            when_to_use=self.when_to_use,
            model_invocable=self.model_invocable,
        )


@dataclass
class SkillSet:
    skills: dict[str, Skill]
    warnings: list[SkillWarning]

    def user_invocable(self) -> list[Skill]:
        return sorted((s for s in self.skills.values() if s.user_invocable), key=lambda s: s.name)

    def model_invocable(self) -> list[Skill]:
        return sorted((s for s in self.skills.values() if s.model_invocable), key=lambda s: s.name)


class _Skip(Exception):
    pass


def _flag(meta: dict[str, Any], key: str) -> bool | None:
    if key not in meta:
        return None
    value = meta[key]
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise _Skip(f"{key} must be true or false, not {value!r}")


def parse_skill(path: Path, text: str, root: SkillRoot) -> Skill:
    """The skill in `text`; `_Skip` says why it is left out."""
    parts = split(text)
    if parts is None:
        raise _Skip("no frontmatter (the file must start with a --- line, and close it)")
    try:
        meta = parse(parts[0])
    except FrontmatterError as exc:
        raise _Skip(f"frontmatter is not valid YAML: {exc}") from exc
    camel = [k for k in _CAMEL if k in meta]
    if camel:
        raise _Skip(f"{camel[0]} is not a field (the flags are disable-model-invocation and user-invocable)")
    name = meta.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise _Skip("name must be kebab-case (lowercase letters, digits and dashes)")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise _Skip("description must be a non-empty string")
    when = meta.get("whenToUse")
    if when is not None and not isinstance(when, str):
        raise _Skip("whenToUse must be a string")
    metadata = meta.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise _Skip("metadata must be a mapping")
    disabled = _flag(meta, "disable-model-invocation")
    user = _flag(meta, "user-invocable")
    return Skill(
        name=name,
        description=description.strip(),
        body=parts[1].strip(),
        path=path,
        source=root.source,
        rank=root.rank,
        when_to_use=when.strip() if when and when.strip() else None,
        model_invocable=not disabled,
        user_invocable=user is not False,
        metadata=metadata or {},
    )


class SkillCatalog:
    """Scans roots on demand; a file is parsed again only when its size or mtime changed."""

    def __init__(self, cache_size: int = 2000) -> None:
        self._cache: OrderedDict[tuple[str, int, int], Skill | str] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()
        self._warned: set[tuple[str, int, int]] = set()

    def scan(self, roots: list[SkillRoot]) -> SkillSet:
        skills: dict[str, Skill] = {}
        warnings: list[SkillWarning] = []
        for root in sorted(roots, key=lambda r: r.rank):
            for path in _candidates(root.path):
                found = self._load(path, root)
                if isinstance(found, str):
                    location = str(path.relative_to(root.path))
                    warnings.append(SkillWarning(source=root.source, location=location, message=found))
                elif found.name not in skills:
                    skills[found.name] = found
        return SkillSet(skills, warnings)

    def _load(self, path: Path, root: SkillRoot) -> Skill | str:
        try:
            info = path.stat()
        except OSError as exc:
            return f"cannot be read: {exc.strerror or exc}"
        key = (str(path), info.st_mtime_ns, info.st_size)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return _rooted(cached, root)
        result = _read(path, root, info.st_size)
        with self._lock:
            self._cache[key] = result
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
            if isinstance(result, str) and key not in self._warned:
                self._warned.add(key)
                log.warning("skill %s skipped: %s", path, result)
        return result


def _rooted(found: Skill | str, root: SkillRoot) -> Skill | str:
    """A cached skill seen through another root (the same file under two roots)."""
    if isinstance(found, Skill) and (found.source, found.rank) != (root.source, root.rank):
        return dataclasses.replace(found, source=root.source, rank=root.rank)
    return found


def _read(path: Path, root: SkillRoot, size: int) -> Skill | str:
    if size > MAX_SKILL_BYTES:
        return f"larger than {MAX_SKILL_BYTES // 1024} KiB"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            text = fh.read(MAX_SKILL_BYTES + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
    try:
        return parse_skill(path, text, root)
    except _Skip as exc:
        return str(exc)


def _candidates(root: Path) -> list[Path]:
    """`<root>/<name>/SKILL.md` and `<root>/<name>.md`, regular files only, name order."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []
    out: list[Path] = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        try:
            if entry.is_dir():
                candidate = path / SKILL_FILE
                if candidate.is_file():
                    out.append(candidate)
            elif entry.name.endswith(".md") and entry.name != SKILL_FILE and entry.is_file():
                out.append(path)
        except OSError:
            continue
        if len(out) >= MAX_SKILLS_PER_ROOT:
            break
    return out
