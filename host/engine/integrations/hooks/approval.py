"""Approving a project's hook file by its exact content (docs/decisions.md, "Hook approval"):
like a project MCP server, `.harnessdesk/hooks.json` in a trusted folder runs only once the
person approved that file's sha256; a changed file is inert until approved again. Approvals
share the MCP approvals table under the name `hooks:<file>`, which no server name can spell
(server names are `[A-Za-z0-9_-]`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from contract.hooks import HookCommandView, HookFileView
from host.engine.integrations.hooks import config as cfg
from host.engine.integrations.mcp.config import MAX_FILE, read_json

Approved = Callable[[Path, str, str], bool]
"""(project root, approval name, digest) → whether the person approved that content."""


def approval_name(relative: str) -> str:
    return f"hooks:{relative}"


def file_digest(path: Path) -> str | None:
    """sha256 of the file's bytes; None when it does not exist or is too large to read."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE:
            return None
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def views(root: Path, compat: frozenset[str], approved: Approved) -> list[HookFileView]:
    """What the trust prompt shows for each project hook file (blocking: call off the loop)."""
    out = []
    for f in cfg.files(compat, trusted=True):
        if not f.project:
            continue
        path = root / f.relative
        digest = file_digest(path)
        if digest is None:
            continue
        doc, problem = read_json(path)
        if f.settings and problem is None and not (isinstance(doc, dict) and "hooks" in doc):
            continue
        found, problems = cfg.parse(doc, str(path), 0, f.dialect) if problem is None else ([], [problem])
        out.append(
            HookFileView(
                path=str(path),
                digest=digest,
                approved=approved(root, approval_name(f.relative), digest),
                commands=[
                    HookCommandView(event=h.event, matcher=h.matcher, command=h.command) for h in found
                ],
                problems=problems,
            )
        )
    return out


def matching(root: Path, compat: frozenset[str], digest: str) -> str | None:
    """The project hook file (relative) whose content now has `digest`, if one does."""
    for f in cfg.files(compat, trusted=True):
        if f.project and file_digest(root / f.relative) == digest:
            return f.relative
    return None
