"""Git's marks for one folder level of the Files pane (docs/decisions.md, "Terminal and files").

`git status` runs through the host's one git runner (host/engine/files/git/runner.py): inside the
read-only sandbox, and not at all before the folder is trusted when the repository's
configuration names programs (then the pane shows no marks and says why, as the header's git
line does). It is limited to the folder being listed (a literal pathspec), so a large repository
costs one folder's worth.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from host.engine.files.git import config_scan, layout
from host.engine.files.git.runner import FolderGit, GitRefused

STATUS_TIMEOUT = 10.0
Withheld = Literal["untrusted-config", "no-sandbox", "failed"]


@dataclass
class Marks:
    repo: bool = False
    withheld: Withheld | None = None
    paths: dict[str, str] = field(default_factory=dict)
    """Path relative to the session's folder → modified / added / deleted / renamed / untracked."""
    untracked_dirs: list[str] = field(default_factory=list)
    """Folders git lists as untracked as a whole ("dir/", relative to the session's folder)."""

    def of_file(self, path: str) -> str | None:
        found = self.paths.get(path)
        if found is not None:
            return found
        return "untracked" if any(path.startswith(d) for d in self.untracked_dirs) else None

    def of_dir(self, path: str) -> str | None:
        """The mark of what is inside folder `path`."""
        inside = path + "/"
        if any(inside.startswith(d) for d in self.untracked_dirs):
            return "untracked"
        found = {m for p, m in self.paths.items() if p.startswith(inside)}
        if not found:
            return None
        if found == {"untracked"}:
            return "untracked"
        if found <= {"added", "untracked"}:
            return "added"
        return "modified"

    def deleted_in(self, rel: str) -> list[str]:
        """Deleted files directly in folder `rel`."""
        prefix = f"{rel}/" if rel else ""
        return [
            p
            for p, m in self.paths.items()
            if m == "deleted" and p.startswith(prefix) and "/" not in p[len(prefix) :]
        ]


def _mark(xy: str) -> str:
    if xy == "??":
        return "untracked"
    if "R" in xy or "C" in xy:
        return "renamed"
    if "A" in xy:
        return "added"
    if "D" in xy:
        return "deleted"
    return "modified"


def parse(porcelain_z: str, prefix: str) -> tuple[dict[str, str], list[str]]:
    """`git status --porcelain -z` (paths from the top) → marks by path relative to the folder
    at `prefix` ("" or "sub/dir/") below the top, and the untracked folders."""
    paths: dict[str, str] = {}
    dirs: list[str] = []
    skip = False
    for entry in porcelain_z.split("\0"):
        if skip:
            skip = False
            continue
        if len(entry) < 4:
            continue
        xy, path = entry[:2], entry[3:]
        skip = "R" in xy or "C" in xy  # the original path follows
        if xy == "??" and path.endswith("/") and prefix.startswith(path):
            dirs.append("")  # the session's folder lies inside an untracked folder
            continue
        if xy == "!!" or not path.startswith(prefix):
            continue
        rel = path[len(prefix) :]
        if xy == "??" and rel.endswith("/"):
            dirs.append(rel)
        elif rel:
            paths[rel.rstrip("/")] = _mark(xy)
    return paths, dirs


def _survey(root: str) -> tuple[layout.RepoLayout, list[str], str] | None:
    """The repository around `root`, what its configuration names, and `root` relative to its
    top ("." at the top)."""
    found = layout.find(Path(root))
    if found is None:
        return None
    return found, config_scan.findings(found), os.path.relpath(root, os.path.realpath(found.top))


async def marks(git: FolderGit, trusted: Callable[[Path], bool], root: str, rel: str) -> Marks:
    """The git marks below folder `rel` of the session's folder `root` (a real path)."""
    surveyed = await asyncio.to_thread(_survey, root)
    if surveyed is None:
        return Marks()
    repo, findings, base = surveyed
    if findings and not trusted(repo.top):
        return Marks(repo=True, withheld="untrusted-config")
    base = base.replace(os.sep, "/")
    prefix = "" if base == "." else f"{base}/"
    spec = f"{prefix}{rel}" if rel else (base if prefix else ".")
    args = ["status", "--porcelain", "-z", "--untracked-files=normal", "--", spec]
    try:
        done = await git.run(repo, args, bound=STATUS_TIMEOUT, env={"GIT_LITERAL_PATHSPECS": "1"})
    except GitRefused:
        return Marks(repo=True, withheld="no-sandbox")
    except (OSError, TimeoutError):
        return Marks(repo=True, withheld="failed")
    if not done.ok:
        return Marks(repo=True, withheld="failed")
    paths, dirs = parse(done.stdout.decode("utf-8", "replace"), prefix)
    return Marks(repo=True, paths=paths, untracked_dirs=dirs)
