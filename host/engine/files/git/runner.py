"""The only place the host starts git (docs/decisions.md, "The host's git"; a test fails on any
other code that spawns git).

Two kinds of git run:

- `FolderGit.run`: git on a person's repository. It runs inside the sandbox — the root read-only,
  the folder read-only unless the call writes, no network, the app's data and the person's
  secrets masked — so whatever the repository's configuration names (a filter driver, an
  fsmonitor, a hook) can only run contained. On a machine with no sandbox it runs only when the
  repository's configuration names no program at all (`config_scan.findings` empty), and it
  refuses otherwise. Either way hooks, fsmonitor, pagers and credential helpers are switched off
  on the command line.
- `PersonGit.run`: the person's own git, on their click — the one unsandboxed path on a person's
  repository (docs/decisions/commit-and-push.md). Only two actions use it, each named by its
  `purpose`: a commit whose hooks run (a trusted folder) and a push (the person's ssh agent and
  credential helpers). It runs with the person's environment and configuration, never asks on a
  terminal, and is bounded in time; a test fails when any other code calls it.
- `private_git`: git on the app's own shadow repositories (snapshots). `GIT_DIR` is ours, the
  system and global configurations are off, so the only configuration git reads is the one we
  wrote: nothing in the person's folder can name a program for it (a `.gitattributes` may name a
  filter, but only a configuration defines one).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from host.engine.files.git import config_scan
from host.engine.files.git.layout import RepoLayout
from host.engine.sandbox import Confinement, SandboxPolicy, support, wrap
from host.engine.sandbox.secret_values import HOST_PREFIX, child_environment, known

GIT = "git"
HARDENED = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
    "-c",
    "credential.helper=",
    "-c",
    "core.untrackedCache=false",
)
"""What a repository could otherwise make a plain `git status` run, switched off (belt and
braces: inside the sandbox it would run contained anyway)."""

DEFAULT_TIMEOUT = 10.0

LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}
"""A path given to git is a path, never a pattern (`*` in a file's name is that character)."""


class GitRefused(Exception):
    """The host will not run git on this repository here (the message says why, in words)."""


@dataclass(frozen=True)
class GitResult:
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def last_error(self) -> str:
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else f"exit status {self.returncode}"


@dataclass(frozen=True)
class GitErrors:
    """A caller's own typed errors for a git run on a person's folder that did not work."""

    untrusted: Callable[[str, list[str], str], Exception]
    """(the work tree, the findings, why): `GitRefused`, git may not run on it here."""
    failed: Callable[[str, GitResult | None], Exception]
    """(one line, the finished run or None): too slow, git missing, or an exit code not expected."""


async def checked(
    running: Awaitable[GitResult],
    layout: RepoLayout,
    args: Sequence[str],
    errors: GitErrors,
    codes: tuple[int, ...] = (0,),
) -> GitResult:
    """Await one `FolderGit.run` of `git args` on `layout`; what went wrong becomes `errors`."""
    try:
        done = await running
    except GitRefused as exc:
        raise errors.untrusted(str(layout.top), [], str(exc)) from exc
    except TimeoutError as exc:
        raise errors.failed(f"git {args[0]} did not finish in time", None) from exc
    except OSError as exc:
        raise errors.failed(f"git could not start: {exc.strerror or exc}", None) from exc
    if done.returncode not in codes:
        raise errors.failed(f"git {args[0]} failed: {done.last_error}", done)
    return done


def _folder_env() -> dict[str, str]:
    """The person's environment without credentials and without any GIT_* variable (one could
    point git at another directory or configuration), plus no prompts and no pager."""
    env = {k: v for k, v in child_environment().items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_EDITOR": ":",
            "LC_ALL": "C",
        }
    )
    return env


class FolderGit:
    """git on the repositories of the person's folders; one per engine."""

    def __init__(self, confinement: Confinement) -> None:
        self._confinement = confinement

    def policy(
        self,
        layout: RepoLayout,
        write: bool,
        writable: Sequence[Path] = (),
        read_only: Sequence[Path] = (),
        readable: Sequence[Path] = (),
        index_only: bool = False,
    ) -> SandboxPolicy:
        """What every sandbox of this host hides (the data folder, the token file, the person's
        secrets), the work tree read-only unless the call writes, never network; plus what a
        worktree operation reads and writes beyond the work tree (see `argv`)."""
        outside = tuple(p for p in (layout.git_dir, layout.common_dir) if not p.is_relative_to(layout.top))
        return self._confinement.policy(
            layout.top,
            write=write,
            network=False,
            readable=(*outside, *readable),
            writable=tuple(writable),
            read_only=tuple(read_only),
            tree_read_only=index_only,
        )

    def argv(
        self,
        layout: RepoLayout,
        args: Sequence[str],
        *,
        write: bool = False,
        writable: Sequence[Path] = (),
        read_only: Sequence[Path] = (),
        readable: Sequence[Path] = (),
        index_only: bool = False,
    ) -> list[str]:
        """The command line that runs `git args` in `layout`'s work tree as this module allows,
        or GitRefused. `writable`: places outside the work tree (or protected inside it) this
        call writes too — a worktree's folder and the repository's `worktrees/` for `git worktree
        add/remove` (docs/decisions.md, "Worktree sessions"); `read_only` stays so over them;
        `readable`: places git reads beyond the repository (its worktrees under the masked data
        folder: `git worktree prune` would otherwise take them for deleted)."""
        argv = [GIT, *HARDENED, *args]
        if support().available:
            return wrap(argv, self.policy(layout, write, writable, read_only, readable, index_only))
        found = config_scan.findings(layout)
        if found:
            raise GitRefused(
                "This machine has no sandbox, and the repository's git configuration names programs"
                f" git would run ({', '.join(found[:3])}); HarnessDesk does not run git here."
            )
        return argv

    async def run(
        self,
        layout: RepoLayout,
        args: Sequence[str],
        *,
        write: bool = False,
        stdin: bytes | None = None,
        bound: float = DEFAULT_TIMEOUT,
        env: Mapping[str, str] | None = None,
        writable: Sequence[Path] = (),
        read_only: Sequence[Path] = (),
        readable: Sequence[Path] = (),
        index_only: bool = False,
    ) -> GitResult:
        """`git args` in the work tree's top; GitRefused when it may not run, TimeoutError when it
        takes longer than `bound` seconds (the process is killed)."""
        argv = self.argv(
            layout,
            args,
            write=write,
            writable=writable,
            read_only=read_only,
            readable=readable,
            index_only=index_only,
        )
        full_env = {**_folder_env(), **(env or {})}
        if not write:
            full_env["GIT_OPTIONAL_LOCKS"] = "0"
        return await _bounded(argv, layout.top, full_env, bound, stdin)


async def _bounded(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], bound: float, stdin: bytes | None = None
) -> GitResult:
    """Run `argv` in its own process group; on a timeout or a cancel the whole group is killed
    and reaped before the error goes on (the agent's git and the person's alike)."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(cwd),
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), bound)
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await asyncio.shield(proc.wait())
        raise
    return GitResult(proc.returncode or 0, out, err)


# ---- the person's own git, on their click ------------------------------------------------------

PersonPurpose = Literal["commit-with-hooks", "push"]
"""The only two reasons git runs outside the sandbox on a person's repository
(docs/decisions/commit-and-push.md); `tests/security/test_person_git.py` fails on any other
caller."""
PERSON_PURPOSES: frozenset[str] = frozenset(get_args(PersonPurpose))
PERSON_TIMEOUT = 120.0
"""A pre-commit hook (a formatter, a test run) or a push over a slow link: minutes at most."""
BATCH_SSH = "ssh -o BatchMode=yes"


def person_environment() -> dict[str, str]:
    """The person's own environment — their ssh agent, HOME, PATH and their tokens (a credential
    helper reads them: it is their git) — less the host's own variables and any value holding a
    key the host knows (docs/threat-model.md, "The one unsandboxed git")."""
    secrets = known()
    return {
        k: v
        for k, v in os.environ.items()
        if not k.upper().startswith(HOST_PREFIX) and not any(s in v for s in secrets)
    }


def _person_env(ssh_configured: bool) -> dict[str, str]:
    """The person's environment, and nothing that could wait on a terminal: no prompt, no pager,
    no editor, ssh in batch mode unless the person configured their own ssh command."""
    env = person_environment()
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_EDITOR": ":",
            "SSH_ASKPASS_REQUIRE": "never",
        }
    )
    if not ssh_configured and "GIT_SSH_COMMAND" not in env and "GIT_SSH" not in env:
        env["GIT_SSH_COMMAND"] = BATCH_SSH
    return env


class PersonGit:
    """The person's own git, as their terminal would run it, started only by their click on
    Commit (in a trusted folder, so that its hooks run) or Push (their credentials): no sandbox,
    their configuration and hooks, but no terminal prompt (`GIT_TERMINAL_PROMPT=0`, ssh in
    `BatchMode` unless their configuration names an ssh command, stdin empty, a session of its
    own) and a bound on time (docs/decisions/commit-and-push.md; docs/threat-model.md, "The one
    unsandboxed git")."""

    async def run(
        self,
        layout: RepoLayout,
        args: Sequence[str],
        *,
        purpose: PersonPurpose,
        bound: float = PERSON_TIMEOUT,
        env: Mapping[str, str] | None = None,
    ) -> GitResult:
        """`git args` in the work tree's top; TimeoutError after `bound` s (the process group is
        killed); ValueError for a purpose that is not one of the two."""
        if purpose not in PERSON_PURPOSES:
            raise ValueError(f"the person's git runs only to {sorted(PERSON_PURPOSES)}, not {purpose!r}")
        configured = await self._spawn(
            layout, ["config", "--get", "core.sshCommand"], _person_env(True), min(bound, DEFAULT_TIMEOUT)
        )
        full_env = {**_person_env(configured.ok and bool(configured.stdout.strip())), **(env or {})}
        return await self._spawn(layout, args, full_env, bound)

    @staticmethod
    async def _spawn(layout: RepoLayout, args: Sequence[str], env: dict[str, str], bound: float) -> GitResult:
        return await _bounded([GIT, *args], layout.top, env, bound)


# ---- the app's own repositories ---------------------------------------------------------------


def private_env(git_dir: Path, work: Path | None) -> dict[str, str]:
    """Only our configuration: no system or global file, HOME inside our git directory."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    env = {
        **keep,
        "GIT_DIR": str(git_dir),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_LITERAL_PATHSPECS": "1",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "HOME": str(git_dir),
    }
    if work is not None:
        env["GIT_WORK_TREE"] = str(work)
    return env


def private_git(
    git_dir: Path,
    work: Path | None,
    args: Sequence[str],
    data: bytes | None = None,
    timeout: float = 120.0,
) -> GitResult:
    """Blocking: `git args` on one of our own repositories (`git_dir` ours, `work` the folder it
    looks at, or None for a bare command such as `init`). OSError / TimeoutExpired pass up."""
    env = private_env(git_dir, work)
    if work is None:
        env.pop("GIT_DIR")
    done = subprocess.run(
        [GIT, "-c", "safe.directory=*", *HARDENED, *args],
        input=data,
        capture_output=True,
        cwd=work if work is not None else git_dir,
        env=env,
        timeout=timeout,
        check=False,
    )
    return GitResult(done.returncode, done.stdout, done.stderr)
