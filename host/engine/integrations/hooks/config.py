"""Hook files in the Claude shape (docs/decisions.md, "Hooks"): `<data dir>/hooks.json` (the
person's) and `<project>/.harnessdesk/hooks.json` (read only in a trusted folder), all loaded and
concatenated in that order. `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command",
"command", "timeout"?}]}]}}`; other events and handler types are skipped with a warning, a bad
regex or a broken file is a problem of that file and registers nothing from it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from contract.vetoes import HookDialect
from host.engine.integrations.mcp.config import MAX_FILE

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
MATCHED = frozenset({"PreToolUse", "PostToolUse", "SessionStart"})
USER_FILE = "hooks.json"
PROJECT_FILE = ".harnessdesk/hooks.json"
DEFAULT_TIMEOUT = 600.0
PROMPT_TIMEOUT = 30.0
_LITERAL = re.compile(r"^[A-Za-z0-9_|]+$")

ALIASES = {
    "bash": "Bash",
    "read_file": "Read",
    "write_file": "Write",
    "edit_file": "Edit",
    "glob": "Glob",
    "grep": "Grep",
    "list_dir": "LS",
    "todo_write": "TodoWrite",
}
"""Claude's tool names for ours: a matcher is tested against both."""
CODEX_ALIASES = {"bash": "Bash"}
"""Codex's (only `bash` has one); a Codex matcher is always a regex."""


@dataclass(frozen=True)
class Handler:
    event: str
    command: str
    timeout: float
    handler_id: str
    matcher: str | None = None
    source: str = ""
    dialect: HookDialect = "claude"

    def matches(self, subject: str | None, native: str | None = None) -> bool:
        m = self.matcher
        if self.event not in MATCHED or m in (None, "", "*") or subject is None:
            return True
        if self.dialect == "codex" and native is not None:
            subject = CODEX_ALIASES.get(native, native)
        names = {subject} | ({native} if native else set())
        if self.dialect == "claude" and _LITERAL.match(m):
            return bool(names & set(m.split("|")))
        return any(re.search(m, n) for n in names)


@dataclass
class HookConfig:
    handlers: list[Handler] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def for_event(self, event: str, subject: str | None = None, native: str | None = None) -> list[Handler]:
        """Matching handlers in config order, exact duplicate commands dropped."""
        seen: set[str] = set()
        out = []
        for h in self.handlers:
            if h.event == event and h.matches(subject, native) and h.command not in seen:
                seen.add(h.command)
                out.append(h)
        return out


def parse(
    doc: object, source: str, start: int, dialect: HookDialect = "claude"
) -> tuple[list[Handler], list[str]]:
    if doc is None:
        return [], []
    hooks = doc.get("hooks") if isinstance(doc, dict) else None
    if not isinstance(hooks, dict):
        return [], [f'{source}: no "hooks" object']
    found: list[Handler] = []
    problems: list[str] = []
    n = start
    for event, groups in hooks.items():
        if event not in EVENTS:
            problems.append(f"{source}: event {event!r} is not supported yet, ignored")
            continue
        if not isinstance(groups, list):
            return [], [f"{source}: {event} must be a list"]
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                return [], [f'{source}: {event}: each entry needs a "hooks" list']
            matcher = group.get("matcher")
            if matcher is not None and not isinstance(matcher, str):
                return [], [f"{source}: {event}: matcher must be a string"]
            if matcher and (dialect == "codex" or not _LITERAL.match(matcher)):
                try:
                    re.compile(matcher)
                except re.error as exc:
                    return [], [f"{source}: {event}: bad matcher {matcher!r} ({exc})"]
            for hook in group["hooks"]:
                if not isinstance(hook, dict) or hook.get("type", "command") != "command":
                    problems.append(f"{source}: {event}: only command hooks run, one skipped")
                    continue
                command = hook.get("command")
                timeout = hook.get("timeout", hook.get("timeoutSec"))
                if not isinstance(command, str) or not command.strip():
                    return [], [f"{source}: {event}: a hook needs a command"]
                default = PROMPT_TIMEOUT if event == "UserPromptSubmit" else DEFAULT_TIMEOUT
                if timeout is not None and (
                    isinstance(timeout, bool) or not isinstance(timeout, int | float)
                ):
                    return [], [f"{source}: {event}: timeout must be a number of seconds"]
                n += 1
                found.append(
                    Handler(
                        event=event,
                        command=command,
                        timeout=float(timeout) if timeout else default,
                        handler_id=f"{dialect}:{event}:{n}",
                        matcher=matcher or None,
                        source=source,
                        dialect=dialect,
                    )
                )
    return found, problems


def load(
    data_dir: Path,
    project: Path,
    trusted: bool,
    approved: Callable[[str, str], bool] | None = None,
    compat: frozenset[str] = frozenset(),
    home: Path | None = None,
) -> HookConfig:
    """Blocking (call off the loop). A project file runs only when `approved(file, digest)` says
    the person approved those exact bytes (docs/decisions.md, "Hook approval"); `compat` names
    the opt-in dialects whose files are read too ("claude", "codex")."""
    config = HookConfig()
    user = home if home is not None else Path.home()
    for f in files(compat, trusted):
        path = (project if f.project else (data_dir if f.relative == USER_FILE else user)) / f.relative
        raw = _read(path)
        if raw is None:
            continue
        digest = hashlib.sha256(raw).hexdigest()
        if f.project and (approved is None or not approved(f.relative, digest)):
            config.problems.append(f"{path}: not approved as it is now, inert until approved")
            continue
        doc, problem = _decode(path, raw)
        if problem:
            config.problems.append(problem)
            continue
        if f.settings and not (isinstance(doc, dict) and "hooks" in doc):
            continue  # a Claude settings file without hooks
        found, problems = parse(doc, str(path), len(config.handlers), f.dialect)
        config.handlers += found
        config.problems += problems
    return config


@dataclass(frozen=True)
class HookFile:
    relative: str
    dialect: HookDialect
    project: bool
    settings: bool = False
    """A settings file whose `hooks` key holds them (Claude Code's); no key is no hooks."""


def files(compat: frozenset[str], trusted: bool) -> list[HookFile]:
    """Every hook file that applies, in load order: user files, then the project's."""
    out = [HookFile(USER_FILE, "claude", False)]
    if "claude" in compat:
        out.append(HookFile(".claude/settings.json", "claude", False, True))
    if "codex" in compat:
        out.append(HookFile(".codex/hooks.json", "codex", False))
    if trusted:
        out.append(HookFile(PROJECT_FILE, "claude", True))
        if "claude" in compat:
            out.append(HookFile(".claude/settings.json", "claude", True, True))
            out.append(HookFile(".claude/settings.local.json", "claude", True, True))
        if "codex" in compat:
            out.append(HookFile(".codex/hooks.json", "codex", True))
    return out


def _read(path: Path) -> bytes | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _decode(path: Path, raw: bytes) -> tuple[object, str | None]:
    try:
        return json.loads(raw.decode("utf-8")), None
    except UnicodeDecodeError:
        return None, f"{path}: cannot be read (not UTF-8)"
    except json.JSONDecodeError as exc:
        return None, f"{path}: not JSON ({exc.msg} at line {exc.lineno})"
