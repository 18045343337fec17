"""The git a worktree session needs, always through the host's one git module (`FolderGit`:
inside the sandbox, hooks and fsmonitor off; docs/decisions.md, "The host's git").

A call that changes the repository names what it writes beyond the checkout (`writable`): the
repository's `worktrees/` folder and the folder a worktree goes in, for `git worktree add` and
`remove`. Failures become the typed errors of `host.engine.errors` (`worktree-failed`,
`worktree-untrusted`); nothing here decides anything.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from host.engine.errors import WorktreeFailed, WorktreeUntrusted
from host.engine.files.git import config_scan
from host.engine.files.git.layout import RepoLayout
from host.engine.files.git.runner import LITERAL, FolderGit, GitErrors, GitResult, checked

READ_BOUND = 30.0
WRITE_BOUND = 300.0
"""`git worktree add` of a large repository writes every file: minutes, not seconds."""
ERRORS = GitErrors(WorktreeUntrusted, lambda line, _done: WorktreeFailed(line))
"""A worktree operation's git that did not work: one line for the person."""


@dataclass(frozen=True)
class Entry:
    """One line of `git status --porcelain -z`."""

    code: str
    path: str
    old: str | None = None
    """A rename's or copy's source."""

    @property
    def untracked(self) -> bool:
        return self.code == "??"

    @property
    def deleted(self) -> bool:
        return "D" in self.code


def parse_status(raw: bytes) -> list[Entry]:
    out: list[Entry] = []
    parts = raw.decode("utf-8", "surrogateescape").split("\0")
    i = 0
    while i < len(parts):
        item = parts[i]
        i += 1
        if len(item) < 4:
            continue
        code, path = item[:2], item[3:]
        old = None
        if "R" in code or "C" in code:
            old = parts[i] if i < len(parts) else None
            i += 1
        out.append(Entry(code, path, old))
    return out


class RepoGit:
    """git on a person's repository for the worktree operations; one per engine."""

    def __init__(
        self,
        git: FolderGit,
        trusted: Callable[[Path], bool],
        worktrees: Callable[[str], list[str]] = lambda _common: [],
    ) -> None:
        self._git = git
        self._trusted = trusted
        self._worktrees = worktrees
        """A shared git directory (real path) → the app's worktrees of it: git sees them in the
        sandbox even under the masked data folder (`worktree prune`, `list`, `branch -D` look at
        every worktree of a repository); another repository's stay hidden."""

    async def check(self, repo: RepoLayout, folder: Path) -> None:
        """WorktreeUntrusted when the repository's configuration names programs and `folder`
        (the checkout it belongs to) is not trusted: git does not run there before trust."""
        found = await asyncio.to_thread(config_scan.findings, repo)
        if found and not self._trusted(folder):
            raise WorktreeUntrusted(str(folder), found)

    async def run(
        self,
        repo: RepoLayout,
        args: Sequence[str],
        *,
        write: bool = False,
        writable: Sequence[Path] = (),
        read_only: Sequence[Path] = (),
        stdin: bytes | None = None,
        bound: float | None = None,
        codes: tuple[int, ...] = (0,),
        literal: bool = True,
    ) -> GitResult:
        common = await asyncio.to_thread(os.path.realpath, repo.common_dir)
        running = self._git.run(
            repo,
            args,
            write=write,
            stdin=stdin,
            bound=bound or (WRITE_BOUND if write else READ_BOUND),
            env=LITERAL if literal else None,
            writable=writable,
            read_only=read_only,
            readable=[Path(p) for p in self._worktrees(common)],
        )
        return await checked(running, repo, args, ERRORS, codes)

    async def text(self, repo: RepoLayout, args: Sequence[str], **kw: object) -> str:
        return (await self.run(repo, args, **kw)).stdout.decode("utf-8", "surrogateescape").strip()  # type: ignore[arg-type]

    # ---- reads ---------------------------------------------------------------------------------

    async def commit_of(self, repo: RepoLayout, ref: str) -> str | None:
        done = await self.run(repo, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], codes=(0, 1))
        return done.stdout.decode().strip() or None if done.ok else None

    async def branches(self, repo: RepoLayout) -> list[str]:
        out = await self.text(repo, ["for-each-ref", "--format=%(refname:short)", "refs/heads"])
        return [line for line in out.splitlines() if line]

    async def worktrees(self, repo: RepoLayout) -> list[tuple[str, str | None]]:
        """(path, branch) of every worktree `git worktree list` knows, the main one first."""
        raw = (await self.run(repo, ["worktree", "list", "--porcelain", "-z"])).stdout
        out: list[tuple[str, str | None]] = []
        path: str | None = None
        branch: str | None = None
        for field in raw.decode("utf-8", "surrogateescape").split("\0"):
            if field.startswith("worktree "):
                path, branch = field[len("worktree ") :], None
            elif field.startswith("branch "):
                branch = field[len("branch ") :].removeprefix("refs/heads/")
            elif field == "" and path is not None:
                out.append((path, branch))
                path = None
        if path is not None:
            out.append((path, branch))
        return out

    async def status(self, repo: RepoLayout) -> list[Entry]:
        raw = (await self.run(repo, ["status", "--porcelain", "-z", "--untracked-files=all"])).stdout
        return parse_status(raw)

    async def ahead_behind(self, repo: RepoLayout, base: str) -> tuple[int, int]:
        """(ahead, behind) of the worktree's HEAD against branch `base` ((0, 0) when base is gone)."""
        done = await self.run(
            repo, ["rev-list", "--left-right", "--count", f"refs/heads/{base}...HEAD"], codes=(0, 128)
        )
        if not done.ok:
            return 0, 0
        behind, _, ahead = done.stdout.decode().strip().partition("\t")
        return int(ahead or 0), int(behind or 0)

    async def count(self, repo: RepoLayout, spec: str) -> int:
        return int(await self.text(repo, ["rev-list", "--count", spec]) or 0)

    async def blobs(self, repo: RepoLayout, commit: str, paths: Sequence[str]) -> dict[str, bytes | None]:
        """The content of each path at `commit` (None: absent, or not a plain file there)."""
        if not paths:
            return {}
        listing = (await self.run(repo, ["ls-tree", "-r", "-z", "--full-tree", commit])).stdout
        wanted = set(paths)
        oids: dict[str, str] = {}
        for line in listing.decode("utf-8", "surrogateescape").split("\0"):
            meta, _, path = line.partition("\t")
            fields = meta.split()
            if path in wanted and len(fields) == 3 and fields[1] == "blob" and fields[0] != "120000":
                oids[path] = fields[2]
        found: dict[str, bytes | None] = dict.fromkeys(paths)
        if not oids:
            return found
        order = list(oids.items())
        stdin = "".join(f"{oid}\n" for _, oid in order).encode()
        raw = (await self.run(repo, ["cat-file", "--batch"], stdin=stdin)).stdout
        at = 0
        for path, _ in order:
            end = raw.index(b"\n", at)
            header = raw[at:end].split()
            size = int(header[2])
            found[path] = raw[end + 1 : end + 1 + size]
            at = end + 1 + size + 1
        return found
