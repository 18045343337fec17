"""The branch and the number of changed files of a session's folder, for the header
(docs/architecture.md, "Workspaces and host folders").

Read-only and bounded: each git command gets a timeout, no terminal prompt, no optional locks
(so the person's own git never finds the index locked by us) and no fsmonitor hook, which a
repository's config could otherwise name as a program to run (docs/decisions.md, "Review and
context")."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

from contract.files import GitStatusValue

GIT_TIMEOUT_S = 3.0
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "--no-optional-locks")
_NOT_A_REPO = GitStatusValue(repo=False)


async def git_status(folder: Path) -> GitStatusValue:
    """`git rev-parse --abbrev-ref HEAD` and `git status --porcelain` in `folder` (a missing
    folder fails like a plain one: not a repo)."""
    head = await _git(folder, "rev-parse", "--abbrev-ref", "HEAD")
    if head is None:  # a repository without a commit yet: its branch is only a name in HEAD
        head = await _git(folder, "symbolic-ref", "--short", "-q", "HEAD")
    if head is None:
        return _NOT_A_REPO
    status = await _git(folder, "status", "--porcelain", "-z", "--untracked-files=normal")
    if status is None:
        return _NOT_A_REPO
    branch = head.strip() or None
    entries = [e for e in status.split("\0") if e]
    # -z: a rename is "R  new\0old": its second path is not an entry of its own
    changed = 0
    skip = False
    for entry in entries:
        if skip:
            skip = False
            continue
        changed += 1
        skip = any(c in entry[:2] for c in "RC")
    return GitStatusValue(repo=True, branch=None if branch == "HEAD" else branch, changed=changed)


async def _git(folder: Path, *args: str) -> str | None:
    """stdout of a successful git command, or None (no git, not a repo, an error, too slow)."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            "-C",
            str(folder),
            *_SAFE,
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), GIT_TIMEOUT_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        return None
    if proc.returncode != 0:
        return None
    return out.decode("utf-8", "replace")
