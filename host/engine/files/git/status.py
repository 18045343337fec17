"""The branch and the number of changed files of a session's folder, for the header
(docs/architecture.md, "Workspaces and host folders").

The branch is read from the files (`layout.branch`), so it shows for every repository. The count
needs `git status`, which a repository's configuration can make run programs (a filter driver
re-hashing a file, an fsmonitor): it runs only when the configuration names nothing to run or the
person trusted the folder, and then through `FolderGit` — inside the read-only sandbox, without
network (docs/decisions.md, "The host's git")."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from contract.files import GitStatusValue
from host.engine.files.git import config_scan, layout
from host.engine.files.git.runner import FolderGit, GitRefused

STATUS_TIMEOUT = 10.0
MAX_FINDINGS = 10
_NOT_A_REPO = GitStatusValue(repo=False)


def _survey(folder: Path) -> tuple[layout.RepoLayout, str | None, list[str]] | None:
    found = layout.find(folder)
    if found is None:
        return None
    return found, layout.branch(found), config_scan.findings(found)


async def git_status(git: FolderGit, folder: Path, trusted: Callable[[Path], bool]) -> GitStatusValue:
    """The header's git line for `folder` (a missing folder, or one outside any repository: not
    a repo); `trusted` says whether the person trusted a repository's folder (its top)."""
    surveyed = await asyncio.to_thread(_survey, folder)
    if surveyed is None:
        return _NOT_A_REPO
    repo, branch, findings = surveyed
    if findings and not trusted(repo.top):
        return GitStatusValue(
            repo=True,
            branch=branch,
            changed=None,
            withheld="untrusted-config",
            findings=findings[:MAX_FINDINGS],
        )
    try:
        done = await git.run(
            repo, ["status", "--porcelain", "-z", "--untracked-files=normal"], bound=STATUS_TIMEOUT
        )
    except GitRefused:
        return GitStatusValue(
            repo=True, branch=branch, changed=None, withheld="no-sandbox", findings=findings[:MAX_FINDINGS]
        )
    except (OSError, TimeoutError):
        return GitStatusValue(repo=True, branch=branch, changed=None, withheld="failed")
    if not done.ok:
        return GitStatusValue(repo=True, branch=branch, changed=None, withheld="failed")
    return GitStatusValue(
        repo=True, branch=branch, changed=count_entries(done.stdout.decode("utf-8", "replace"))
    )


def count_entries(porcelain_z: str) -> int:
    """Entries of `git status --porcelain -z`; a rename or copy ("R  new\\0old") is one."""
    changed = 0
    skip = False
    for entry in porcelain_z.split("\0"):
        if not entry:
            continue
        if skip:
            skip = False
            continue
        changed += 1
        skip = any(c in entry[:2] for c in "RC")
    return changed
