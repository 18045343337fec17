"""Commit, log, push and what a pull request needs, on a person's repository
(docs/decisions/commit-and-push.md; docs/decisions.md, "The host's git").

Everything reads and commits inside the sandbox (`FolderGit`) except two actions the person
clicks: a commit in a trusted folder, so that its hooks run as the person's own git would, and a
push, which needs the person's credentials (ssh agent, credential helpers). Those two go through
`PersonGit`, the runner's one unsandboxed path; nothing else here calls it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from host.engine.errors import (
    AuthFailed,
    GitFailed,
    GitIdentityMissing,
    NoRemote,
    PushRejected,
    WorktreeUntrusted,
)
from host.engine.files.git.layout import RepoLayout
from host.engine.files.git.runner import (
    LITERAL,
    FolderGit,
    GitErrors,
    GitRefused,
    GitResult,
    PersonGit,
    checked,
)

READ_BOUND = 30.0
COMMIT_BOUND = 120.0
"""A commit in the sandbox writes objects for every staged file; a hook may run tests."""
PUSH_BOUND = 300.0
HOOK_OUTPUT_CAP = 8000
NO_HOOKS = ("-c", "core.hooksPath=/dev/null")
"""The person's git in a folder they did not trust: no hook of the folder runs."""

_REJECTED = re.compile(r"\[rejected\]|\[remote rejected\]|non-fast-forward|fetch first|Updates were rejected")
_AUTH = re.compile(
    r"Permission denied|Authentication failed|could not read (Username|Password)|terminal prompts disabled"
    r"|Host key verification failed|invalid credentials|HTTP Basic: Access denied|returned error: 40[13]",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Identity:
    name: str
    email: str

    @property
    def env(self) -> dict[str, str]:
        return {
            "GIT_AUTHOR_NAME": self.name,
            "GIT_AUTHOR_EMAIL": self.email,
            "GIT_COMMITTER_NAME": self.name,
            "GIT_COMMITTER_EMAIL": self.email,
        }


@dataclass(frozen=True)
class Committed:
    sha: str
    hooks_skipped: bool
    hook_output: str


@dataclass(frozen=True)
class LogLine:
    sha: str
    subject: str
    author: str
    at_ms: int


@dataclass(frozen=True)
class Pushed:
    remote: str
    branch: str
    upstream_set: bool


def _text(done: GitResult) -> str:
    return done.stdout.decode("utf-8", "replace").strip()


def _output(done: GitResult) -> str:
    return (done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace")).strip()


ERRORS = GitErrors(WorktreeUntrusted, lambda line, done: GitFailed(line, _output(done) if done else ""))
"""A read for the commit box that did not work: one line, and what git printed."""


class RepoCommits:
    """git for the commit box; one per engine. `writable`/`read_only`: what a commit writes
    beyond the work tree (a worktree session's share of the shared git directory)."""

    def __init__(self, git: FolderGit, person: PersonGit) -> None:
        self._git = git
        self._person = person

    async def _read(self, repo: RepoLayout, args: Sequence[str], codes: tuple[int, ...] = (0,)) -> GitResult:
        return await checked(
            self._git.run(repo, args, bound=READ_BOUND, env=LITERAL), repo, args, ERRORS, codes
        )

    # ---- reads --------------------------------------------------------------------------------

    async def identity(self, repo: RepoLayout) -> Identity:
        """The person's git identity as their own `git commit` would take it (their global
        configuration, or the repository's own where it sets one); GitIdentityMissing when git
        knows none — the host never invents one."""
        name = _text(await self._read(repo, ["config", "--get", "user.name"], codes=(0, 1)))
        email = _text(await self._read(repo, ["config", "--get", "user.email"], codes=(0, 1)))
        if not name or not email:
            raise GitIdentityMissing()
        return Identity(name, email)

    async def has_staged(self, repo: RepoLayout) -> bool:
        done = await self._read(repo, ["diff", "--cached", "--quiet", "--no-ext-diff"], codes=(0, 1))
        return done.returncode == 1

    async def staged_paths(self, repo: RepoLayout) -> list[str]:
        raw = (await self._read(repo, ["diff", "--cached", "--name-only", "-z", "--no-ext-diff"])).stdout
        return [p for p in raw.decode("utf-8", "replace").split("\0") if p]

    async def staged_diff(self, repo: RepoLayout, cap: int) -> tuple[str, str]:
        """(`--stat`, the diff cut to `cap` characters) of what is staged."""
        stat = _text(await self._read(repo, ["diff", "--cached", "--stat", "--no-color", "--no-ext-diff"]))
        if len(stat) > cap // 4:  # thousands of files: their names would crowd out the diff
            stat = stat[: cap // 4] + "\n[… more files left out …]"
        diff = (
            await self._read(repo, ["diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv"])
        ).stdout.decode("utf-8", "replace")
        if len(diff) > cap:
            diff = diff[:cap] + f"\n[… {len(diff) - cap} more characters of the diff left out …]\n"
        return stat, diff

    async def head(self, repo: RepoLayout) -> str | None:
        done = await self._read(repo, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], codes=(0, 1))
        return _text(done) or None if done.ok else None

    async def log(self, repo: RepoLayout, limit: int) -> list[LogLine]:
        if await self.head(repo) is None:
            return []
        raw = (
            await self._read(
                repo, ["log", f"--max-count={limit}", "--no-color", "-z", "--format=%H%x1f%an%x1f%at%x1f%s"]
            )
        ).stdout.decode("utf-8", "replace")
        out: list[LogLine] = []
        for entry in raw.split("\0"):
            parts = entry.strip("\n").split("\x1f")
            if len(parts) == 4 and re.fullmatch(r"[0-9a-f]{40}", parts[0]):
                out.append(LogLine(parts[0], parts[3], parts[1], int(parts[2]) * 1000))
        return out

    async def remotes(self, repo: RepoLayout) -> list[str]:
        return [r for r in _text(await self._read(repo, ["remote"])).splitlines() if r]

    async def upstream(self, repo: RepoLayout) -> str | None:
        """The branch's upstream (`origin/feature`), or None before its first push."""
        done = await self._read(
            repo, ["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"], codes=(0, 128)
        )
        return _text(done) or None if done.ok else None

    async def remote_url(self, repo: RepoLayout, remote: str) -> str:
        return _text(await self._read(repo, ["remote", "get-url", "--push", remote]))

    async def remote_default(self, repo: RepoLayout, remote: str) -> str | None:
        """The remote's default branch as the last fetch or clone saw it (`main`), if known."""
        done = await self._read(
            repo, ["symbolic-ref", "--quiet", f"refs/remotes/{remote}/HEAD"], codes=(0, 1, 128)
        )
        ref = _text(done)
        prefix = f"refs/remotes/{remote}/"
        return ref[len(prefix) :] if done.ok and ref.startswith(prefix) else None

    async def push_target(self, repo: RepoLayout, branch: str) -> tuple[str, bool]:
        """(the remote to push `branch` to, whether it already has an upstream); NoRemote when
        the repository has none or several and no upstream says which."""
        upstream = await self.upstream(repo)
        remotes = await self.remotes(repo)
        if upstream and "/" in upstream:
            named = next((r for r in remotes if upstream.startswith(r + "/")), None)
            if named is not None:
                return named, True
        if not remotes:
            raise NoRemote()
        if len(remotes) == 1:
            return remotes[0], False
        if "origin" in remotes:
            return "origin", False
        raise NoRemote(
            f"This repository has several remotes ({', '.join(remotes[:5])}) and {branch} has no upstream."
        )

    # ---- commit -------------------------------------------------------------------------------

    async def commit(
        self,
        repo: RepoLayout,
        message: str,
        amend: bool,
        identity: Identity,
        *,
        trusted: bool,
        writable: Sequence[Path] = (),
        read_only: Sequence[Path] = (),
    ) -> Committed:
        """Commit what is staged. In a trusted folder the person's own git commits, outside the
        sandbox, so its hooks run and what they print comes back; otherwise the sandbox's git
        commits with hooks off (`hooks_skipped`)."""
        args = ["commit", "--quiet", "--cleanup=whitespace", "-m", message, *(["--amend"] if amend else [])]
        if trusted:
            try:
                done = await self._person.run(
                    repo, args, purpose="commit-with-hooks", bound=COMMIT_BOUND, env=identity.env
                )
            except TimeoutError as exc:
                raise GitFailed(
                    "The commit (with its hooks) did not finish in time; nothing was committed."
                ) from exc
            except OSError as exc:
                raise GitFailed(f"git could not start: {exc.strerror or exc}.") from exc
            if not done.ok:
                raise GitFailed("git did not commit (a hook may have refused it).", _output(done))
            hook_output = done.stderr.decode("utf-8", "replace").strip()[-HOOK_OUTPUT_CAP:]
            skipped = False
        else:
            try:
                done = await self._git.run(
                    repo,
                    [*args, "--no-verify"],
                    write=True,
                    bound=COMMIT_BOUND,
                    env=identity.env,
                    writable=writable,
                    read_only=read_only,
                )
            except GitRefused as exc:
                raise WorktreeUntrusted(str(repo.top), [], str(exc)) from exc
            except TimeoutError as exc:
                raise GitFailed("The commit did not finish in time; nothing was committed.") from exc
            except OSError as exc:
                raise GitFailed(f"git could not start: {exc.strerror or exc}.") from exc
            if not done.ok:
                raise GitFailed(f"git did not commit: {done.last_error}", _output(done))
            hook_output, skipped = "", True
        sha = await self.head(repo)
        if sha is None:
            raise GitFailed("git reported a commit but the branch has none.")
        return Committed(sha, skipped, hook_output)

    # ---- push ---------------------------------------------------------------------------------

    async def push(self, repo: RepoLayout, branch: str, *, trusted: bool) -> Pushed:
        """Push `branch` with the person's credentials, outside the sandbox (the person clicked
        Push); the first push sets its upstream. In a folder the person did not trust, its
        pre-push hook does not run."""
        remote, has_upstream = await self.push_target(repo, branch)
        hooks: list[str] = [] if trusted else [*NO_HOOKS]
        args = [*hooks, "push", "--porcelain", *([] if trusted else ["--no-verify"])]
        args += [remote, f"HEAD:refs/heads/{branch}"] if has_upstream else ["--set-upstream", remote, branch]
        try:
            done = await self._person.run(repo, args, purpose="push", bound=PUSH_BOUND)
        except TimeoutError as exc:
            raise GitFailed(f"The push to {remote} did not finish in time.") from exc
        except OSError as exc:
            raise GitFailed(f"git could not start: {exc.strerror or exc}.") from exc
        if not done.ok:
            output = _output(done)
            if _REJECTED.search(output):
                raise PushRejected(remote, output)
            if _AUTH.search(output):
                raise AuthFailed(remote, output)
            if (
                "does not appear to be a git repository" in output
                or "No configured push destination" in output
            ):
                raise NoRemote(f"The remote {remote} cannot be reached as a repository.", output)
            raise GitFailed(f"The push to {remote} failed: {done.last_error}", output)
        return Pushed(remote, branch, not has_upstream)
