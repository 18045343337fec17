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
from host.engine.hooks import config as cfg
from host.engine.mcp.config import MAX_FILE, read_json

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


def view(root: Path, relative: str, approved: Approved) -> HookFileView | None:
    """What the trust prompt shows for one project hook file (blocking: call off the loop)."""
    path = root / relative
    digest = file_digest(path)
    if digest is None:
        return None
    doc, problem = read_json(path)
    handlers, problems = cfg.parse(doc, str(path), 0) if problem is None else ([], [problem])
    return HookFileView(
        path=str(path),
        digest=digest,
        approved=approved(root, approval_name(relative), digest),
        commands=[HookCommandView(event=h.event, matcher=h.matcher, command=h.command) for h in handlers],
        problems=problems,
    )
