"""What a sandbox allows (the policy), what this machine offers (the support), and the paths both
mechanisms treat specially: the folder's protected entries and the user's secrets."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SandboxKind = Literal["bwrap", "landlock", "none"]

PROTECTED_ENTRIES = (".git/hooks", ".git/config", ".harnessdesk", ".mcp.json", "AGENTS.md")
"""Inside the folder and read-only even when it is writable: what git, HarnessDesk or the next
session would run or read as instructions (a planted hook runs on the user's next commit)."""

SECRET_PATHS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".config/gh",
    ".config/gcloud",
    ".config/git/credentials",
    ".local/share/keyrings",
    ".password-store",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/harnessdesk",
)
"""Below the home folder: credentials, keyrings and browser profiles, masked inside."""


@dataclass(frozen=True)
class SandboxPolicy:
    """One sandboxed run: `workspace` is the one writable place (plus a private /tmp)."""

    workspace: Path
    write: bool = True
    """False: everything read-only (the read-only mode)."""
    network: bool = False
    """False: no network at all, not even the host's own loopback server."""
    data_dir: Path | None = None
    """HarnessDesk's data folder: masked inside (the database, credentials, other sessions)."""


@dataclass(frozen=True)
class SandboxSupport:
    kind: SandboxKind
    reason: str
    """One sentence a person can read ("bubblewrap 0.8.0 at /usr/bin/bwrap")."""

    @property
    def available(self) -> bool:
        return self.kind != "none"


class SandboxUnavailable(Exception):
    """This machine offers no sandbox: the caller must refuse, never run the command bare."""


def real(path: Path) -> Path:
    """The path with every symlink resolved (what a bind or a Landlock rule really reaches)."""
    return Path(os.path.realpath(path))


def inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def protected_paths(workspace: Path) -> list[Path]:
    """The protected entries that exist, resolved. One that is a symlink counts only where it
    really leads inside the folder: binding a link planted to point at a secret or at a place
    outside would make that place visible or change what is protected (docs/decisions.md)."""
    root = real(workspace)
    out: list[Path] = []
    for entry in PROTECTED_ENTRIES:
        candidate = root / entry
        if not os.path.lexists(candidate):
            continue
        target = real(candidate)
        if inside(target, root) and target != root and target.exists() and target not in out:
            out.append(target)
    return out


def secret_paths(home: Path | None = None) -> list[Path]:
    """The secrets below the home folder that exist (resolved; a masked link masks its target)."""
    base = home or Path.home()
    out: list[Path] = []
    for entry in SECRET_PATHS:
        candidate = base / entry
        if os.path.lexists(candidate):
            target = real(candidate)
            if target.exists() and target != Path("/") and target not in out:
                out.append(target)
    return out
