"""MCP server configuration in the `.mcp.json` shape, from three sources (docs/decisions.md,
"MCP servers"): per-project overrides the person wrote (`<data dir>/mcp-overrides.json`), the
project's own files (`<project>/.mcp.json`, then `<project>/.harnessdesk/mcp.json`) and the
person's user servers (`<data dir>/mcp.json`). Higher wins on the same name: override > project
> user. A broken entry disables only that server; a file that is not JSON marks its source broken.

Reading is blocking (call it off the loop). Nothing here starts anything: expansion of
`${VAR}`, `${VAR:-default}` and `${cred:name}` happens only when a server is started.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from host.engine.integrations.mcp.names import SERVER_NAME

Scope = Literal["user", "project", "override", "editor"]
Transport = Literal["stdio", "http", "sse"]

USER_FILE = "mcp.json"
OVERRIDES_FILE = "mcp-overrides.json"
PROJECT_FILES = (".mcp.json", ".harnessdesk/mcp.json")
MAX_FILE = 1 << 20

STDIO_KEYS = {"type", "command", "args", "env", "cwd", "network"}
HTTP_KEYS = {"type", "url", "headers"}
COMMON_KEYS = {"startupTimeoutMs", "toolCallTimeoutMs", "description"}
DEFAULT_STARTUP_S = 30.0
DEFAULT_CALL_S = 60.0

_VAR = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CRED = re.compile(r"^cred:([A-Za-z0-9_.-]{1,128})$")


class MissingValue(Exception):
    """A `${VAR}` with no value and no default, or a `${cred:…}` the store does not hold."""


@dataclass(frozen=True)
class ServerEntry:
    name: str
    scope: Scope
    source: str
    """The file the entry came from."""
    raw: Any
    digest: str
    """sha256 of the entry's raw JSON (before expansion): an approval covers exactly this."""
    transport: Transport = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    network: bool = False
    url: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    startup_timeout: float = DEFAULT_STARTUP_S
    call_timeout: float = DEFAULT_CALL_S
    warnings: tuple[str, ...] = ()
    error: str | None = None
    """A config error: the server is never started."""

    @property
    def trusted_source(self) -> bool:
        """User and override entries are the person's own; project entries need trust + approval."""
        return self.scope != "project"

    def command_line(self) -> str:
        """What the person approves: the exact command line or URL, as written (unexpanded)."""
        if self.transport == "stdio":
            return shlex.join([self.command, *self.args]) if self.command else ""
        return self.url


@dataclass
class McpConfig:
    """A project's servers after precedence, plus what could not be read."""

    servers: dict[str, ServerEntry] = field(default_factory=dict)
    disabled: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)


def digest(raw: Any) -> str:
    text = json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of strings")
    return tuple(value)


def _pairs(value: Any, what: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"{what} must be an object of strings")
    return tuple((str(k), v) for k, v in value.items())


def _timeout(value: Any, default: float, what: str) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not 100 <= value <= 3_600_000:
        raise ValueError(f"{what} must be a number of milliseconds between 100 and 3600000")
    return float(value) / 1000


def parse_entry(name: str, raw: Any, scope: Scope, source: str) -> ServerEntry:
    """One entry; a broken one comes back with `error` set (it disables only that server)."""
    base = ServerEntry(name=name, scope=scope, source=source, raw=raw, digest=digest(raw))
    if not SERVER_NAME.match(name):
        return _broken(base, "the name must be 1 to 32 letters, digits, '_' or '-'")
    if not isinstance(raw, dict):
        return _broken(base, "the entry must be an object")
    kind = raw.get("type", "stdio" if "command" in raw else "http" if "url" in raw else None)
    if kind == "streamable-http":
        kind = "http"
    if kind not in ("stdio", "http", "sse"):
        return _broken(base, f"unknown type {kind!r} (stdio, http or sse)")
    known = (STDIO_KEYS if kind == "stdio" else HTTP_KEYS) | COMMON_KEYS
    warnings = tuple(f"unknown key {k!r} ignored" for k in raw if k not in known)
    try:
        startup = _timeout(raw.get("startupTimeoutMs"), DEFAULT_STARTUP_S, "startupTimeoutMs")
        call = _timeout(raw.get("toolCallTimeoutMs"), DEFAULT_CALL_S, "toolCallTimeoutMs")
        if kind == "stdio":
            command = raw.get("command")
            if not isinstance(command, str) or not command.strip():
                raise ValueError("a stdio server needs a command")
            cwd = raw.get("cwd")
            if cwd is not None and not isinstance(cwd, str):
                raise ValueError("cwd must be a string")
            network = raw.get("network", False)
            if not isinstance(network, bool):
                raise ValueError("network must be true or false")
            return _replace(
                base,
                transport="stdio",
                command=command,
                args=_strings(raw.get("args"), "args"),
                env=_pairs(raw.get("env"), "env"),
                cwd=cwd,
                network=network,
                startup_timeout=startup,
                call_timeout=call,
                warnings=warnings,
            )
        url = raw.get("url")
        if not isinstance(url, str) or not re.match(r"^(https?://|\$\{)", url):
            raise ValueError("an http or sse server needs an http(s) url")
        return _replace(
            base,
            transport=kind,
            url=url,
            headers=_pairs(raw.get("headers"), "headers"),
            startup_timeout=startup,
            call_timeout=call,
            warnings=warnings,
        )
    except ValueError as exc:
        return _broken(base, str(exc))


def _replace(entry: ServerEntry, **changes: Any) -> ServerEntry:
    from dataclasses import replace

    return replace(entry, **changes)


def _broken(entry: ServerEntry, why: str) -> ServerEntry:
    return _replace(entry, error=f"{entry.source}: server {entry.name!r}: {why}")


def read_json(path: Path) -> tuple[Any, str | None]:
    """(document, problem): (None, None) when the file does not exist."""
    try:
        if not path.is_file():
            return None, None
        if path.stat().st_size > MAX_FILE:
            return None, f"{path}: larger than 1 MiB, ignored"
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path}: cannot be read ({exc.__class__.__name__})"
    except json.JSONDecodeError as exc:
        return None, f"{path}: not JSON ({exc.msg} at line {exc.lineno})"


def entries(doc: Any, scope: Scope, source: str, problems: list[str]) -> dict[str, ServerEntry]:
    if doc is None:
        return {}
    servers = doc.get("mcpServers") if isinstance(doc, dict) else None
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        problems.append(f"{source}: mcpServers must be an object")
        return {}
    return {name: parse_entry(name, raw, scope, source) for name, raw in servers.items()}


def _read(path: Path, scope: Scope, problems: list[str]) -> dict[str, ServerEntry]:
    doc, problem = read_json(path)
    if problem:
        problems.append(problem)
    return entries(doc, scope, str(path), problems)


def project_overrides(data_dir: Path, project: str) -> tuple[dict[str, Any], str | None]:
    """The override section for one project: `{"mcpServers": …, "disabled": [names]}`."""
    doc, problem = read_json(data_dir / OVERRIDES_FILE)
    projects = doc.get("projects") if isinstance(doc, dict) else None
    section = projects.get(project) if isinstance(projects, dict) else None
    return (section if isinstance(section, dict) else {}), problem


def load(data_dir: Path, project: Path, *, include_project: bool = True) -> McpConfig:
    """Every server a session in `project` could use, after precedence."""
    config = McpConfig()
    merged = _read(data_dir / USER_FILE, "user", config.problems)
    if include_project:
        for rel in PROJECT_FILES:
            merged.update(_read(project / rel, "project", config.problems))
    section, problem = project_overrides(data_dir, str(project))
    if problem:
        config.problems.append(problem)
    merged.update(entries(section, "override", str(data_dir / OVERRIDES_FILE), config.problems))
    disabled = section.get("disabled", [])
    config.disabled = {d for d in disabled if isinstance(d, str)} if isinstance(disabled, list) else set()
    config.servers = merged
    return config


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)


def ensure_user_file(path: Path) -> None:
    """An empty `{"mcpServers": {}}` where there is none yet (an existing file is never touched)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, '{\n  "mcpServers": {}\n}\n')


def write_disabled(data_dir: Path, project: str, name: str, enabled: bool) -> None:
    """Record enable/disable for one server in one project (atomic replace of the file)."""
    path = data_dir / OVERRIDES_FILE
    doc, problem = read_json(path)
    if problem is not None:
        raise OSError(problem)
    doc = doc if isinstance(doc, dict) else {}
    projects = doc.setdefault("projects", {})
    section = projects.setdefault(project, {})
    disabled = [d for d in section.get("disabled", []) if isinstance(d, str) and d != name]
    if not enabled:
        disabled.append(name)
    section["disabled"] = sorted(disabled)
    _atomic_write(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


# ---- expansion (at start only) -------------------------------------------------------------

Credential = Callable[[str], str | None]


def expand(text: str, environ: Mapping[str, str], credential: Credential) -> str:
    """`${VAR}`, `${VAR:-default}` and `${cred:name}`; a bare `$VAR` stays as it is."""

    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        cred = _CRED.match(body)
        if cred:
            value = credential(cred.group(1))
            if value is None:
                raise MissingValue(f"missing credential {cred.group(1)}")
            return value
        name, sep, default = body.partition(":-")
        if not _NAME.match(name):
            raise MissingValue(f"bad variable reference ${{{body}}}")
        if name in environ and environ[name] != "":
            return environ[name]
        if sep:
            return default
        raise MissingValue(f"missing env {name}")

    return _VAR.sub(one, text)


@dataclass(frozen=True)
class Expanded:
    command: str
    args: list[str]
    env: dict[str, str]
    url: str
    headers: dict[str, str]


def expanded(entry: ServerEntry, environ: Mapping[str, str], credential: Credential) -> Expanded:
    """The entry with its references filled in (raises MissingValue)."""

    def x(s: str) -> str:
        return expand(s, environ, credential)

    return Expanded(
        command=x(entry.command),
        args=[x(a) for a in entry.args],
        env={k: x(v) for k, v in entry.env},
        url=x(entry.url),
        headers={k: x(v) for k, v in entry.headers},
    )
