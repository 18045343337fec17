"""The commit box: draft a message, commit, the branch's log with the turns each commit covers,
push and pull request (docs/decisions/commit-and-push.md).

A session's repository is the one its folder lies in (a worktree session's: its worktree). Before
trust, git runs on a repository whose configuration names programs not at all (`worktree-
untrusted`, docs/decisions.md "The host's git"); a commit runs in the sandbox with hooks off
unless the folder is trusted; push and the pull request use the person's credentials on their
click only (the methods are privileged).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from contract.content import STREAM_CHUNK, BlockEndChunk, MessageSource, TextBlock
from contract.sessions import ModelSelection
from host.engine.errors import (
    GitFailed,
    ModelUnavailable,
    NoRemote,
    NotARepository,
    NothingStaged,
    WorktreeUntrusted,
)
from host.engine.files.git import config_scan
from host.engine.files.git import layout as git_layout
from host.engine.files.git.commits import Committed, LogLine, Pushed, RepoCommits
from host.engine.files.git.hosting import compare_url, gh_create, gh_logged_in, gh_program, hosted
from host.engine.files.git.layout import RepoLayout
from host.engine.llm.base import LlmError, LlmRequest
from host.engine.llm.registry import AdapterRegistry
from host.engine.sandbox.binds import SandboxBinds
from host.engine.sandbox.secret_values import redact
from host.engine.sessions import events
from host.engine.store import SessionHeader, Store
from host.engine.store import commits as table

DIFF_CAP = 24_000
"""Characters of the staged diff the model reads to draft a message (the `--stat` is always whole)."""
DRAFT_BOUND = 90.0
DRAFT_TOKENS = 400
DRAFT_SYSTEM = (
    "You write git commit messages. Answer with the message only: a subject line of at most 72"
    " characters in the imperative mood, a blank line, then a few short lines saying what changed"
    " and why. No code fences, no preamble."
)
DRAFT_ASK = "Write the commit message for these staged changes.\n\n{stat}\n\n{diff}"


@dataclass(frozen=True)
class LogEntry:
    line: LogLine
    turns: list[tuple[int, int]]


@dataclass(frozen=True)
class Log:
    entries: list[LogEntry]
    branch: str | None
    staged: list[str]


class Commits:
    """`git.draftMessage/commit/log/push/pullRequest` for a session's repository."""

    def __init__(
        self,
        store: Store,
        registry: AdapterRegistry,
        header: Callable[[str], Awaitable[SessionHeader]],
        default_cwd: Callable[[], str],
        selection: Callable[[str, SessionHeader], ModelSelection],
        repo: RepoCommits,
        trusted: Callable[[Path], bool],
        binds_for: Callable[[Path], SandboxBinds],
        base_of: Callable[[str], str | None],
        turns_by_path: Callable[[str], Awaitable[tuple[Path, dict[str, tuple[int, ...]]]]],
    ) -> None:
        self._store = store
        self._registry = registry
        self._header = header
        self._default_cwd = default_cwd
        self._selection = selection
        self._repo = repo
        self._trusted = trusted
        self._binds_for = binds_for
        self._base_of = base_of
        """The branch a worktree session's branch is compared with (None: a local session)."""
        self._turns_by_path = turns_by_path
        """The session's folder and the turns that changed each path in it (its change record)."""

    async def _open(self, session_id: str) -> tuple[SessionHeader, RepoLayout, bool]:
        """The session's header, its repository and whether the person trusted its folder;
        NotARepository / WorktreeUntrusted (git does not run before trust on a configuration
        that names programs)."""
        header = await self._header(session_id)
        folder = header.cwd or self._default_cwd()
        repo = await asyncio.to_thread(git_layout.find, Path(folder))
        if repo is None:
            raise NotARepository(folder)
        trusted = self._trusted(repo.top)
        found = await asyncio.to_thread(config_scan.findings, repo)
        if found and not trusted:
            raise WorktreeUntrusted(str(repo.top), found)
        return header, repo, trusted

    # ---- draft --------------------------------------------------------------------------------

    async def draft_message(self, session_id: str) -> str:
        """A message drafted by the session's model from the staged diff (one bounded request;
        nothing is committed)."""
        header, repo, _ = await self._open(session_id)
        if not await self._repo.has_staged(repo):
            raise NothingStaged(session_id)
        stat, diff = await self._repo.staged_diff(repo, DIFF_CAP)
        chosen = self._selection(session_id, header)
        adapter = self._registry.get(chosen.provider)
        if adapter is None:
            raise ModelUnavailable(chosen.provider, chosen.model)
        request = LlmRequest(
            model=chosen.model,
            messages=[
                events.new_message(
                    "user",
                    [TextBlock(text=redact(DRAFT_ASK.format(stat=stat, diff=diff)))],  # as a tool's output
                    MessageSource(kind="plugin"),
                )
            ],
            system=DRAFT_SYSTEM,
            tools=[],
            max_tokens=DRAFT_TOKENS,
        )
        try:
            text = await asyncio.wait_for(_collect(adapter.stream(request)), DRAFT_BOUND)
        except TimeoutError as exc:
            raise ModelUnavailable(
                chosen.provider,
                chosen.model,
                "The model did not draft a message in time; write one yourself.",
            ) from exc
        except LlmError as exc:
            raise ModelUnavailable(
                chosen.provider, chosen.model, f"The model could not draft a message: {exc}"
            ) from exc
        return _clean(text)

    # ---- commit and log -----------------------------------------------------------------------

    async def commit(self, session_id: str, message: str, amend: bool) -> Committed:
        _, repo, trusted = await self._open(session_id)
        if not message.strip():
            raise GitFailed("A commit needs a message.")
        identity = await self._repo.identity(repo)
        before = await self._repo.head(repo)
        if amend and before is None:
            raise GitFailed("There is no commit to amend yet.")
        if not amend and not await self._repo.has_staged(repo):
            raise NothingStaged(session_id)
        changed = await self._changed_turns(session_id, repo, await self._repo.staged_paths(repo))
        binds = await asyncio.to_thread(self._binds_for, repo.top)
        done = await self._repo.commit(
            repo,
            message,
            amend,
            identity,
            trusted=trusted,
            writable=binds.writable,
            read_only=binds.read_only,
        )
        await self._record(session_id, done.sha, before if amend else None, changed)
        return done

    async def _changed_turns(self, session_id: str, repo: RepoLayout, paths: list[str]) -> set[int] | None:
        """The turns that changed any of `paths` (repository-relative), from the session's change
        record; None when it cannot be read."""
        try:
            cwd, by_path = await self._turns_by_path(session_id)
        except Exception:
            return None

        def match() -> set[int]:
            folder = os.path.realpath(cwd)
            top = os.path.realpath(repo.top)
            committed = {os.path.normpath(os.path.join(top, p)) for p in paths}
            return {
                turn
                for path, turns in by_path.items()
                if os.path.normpath(os.path.join(folder, path)) in committed
                for turn in turns
            }

        return await asyncio.to_thread(match)

    async def _record(self, session_id: str, sha: str, amended: str | None, changed: set[int] | None) -> None:
        """Which turns `sha` covers: those that changed a file it commits and that no earlier
        commit of the session covers (`changed` None: the turns that ended since its previous
        commit); an amended commit's turns carry over to the commit replacing it."""

        def write(conn: Any) -> None:
            rows = table.read(conn, session_id)
            kept = next((r.turns for r in rows if r.sha == amended), []) if amended else []
            if changed is None:
                after = max((r.last_seq for r in rows), default=-1)
                fresh = table.ended_turns(conn, session_id, after)
            else:
                linked = {t for r in rows if r.sha != amended for t, _ in r.turns}
                starts = table.turn_starts(conn, session_id)
                fresh = [(t, starts[t]) for t in sorted(changed) if t in starts and t not in linked]
            covered = sorted({*((t, s) for t, s in kept), *fresh})
            row = table.CommitRow(
                session_id, sha, covered, table.last_seq(conn, session_id), int(time.time() * 1000)
            )
            table.write(conn, row)

        await self._store.call(write)
        await self._store.flush()

    async def log(self, session_id: str, limit: int) -> Log:
        _, repo, _ = await self._open(session_id)
        lines = await self._repo.log(repo, limit)
        rows = await self._store.call(lambda conn: table.read(conn, session_id))
        turns = {r.sha: r.turns for r in rows}
        entries = [LogEntry(line, turns.get(line.sha, [])) for line in lines]
        return Log(entries, git_layout.branch(repo), await self._repo.staged_paths(repo))

    # ---- push and pull request ----------------------------------------------------------------

    async def push(self, session_id: str) -> Pushed:
        _, repo, trusted = await self._open(session_id)
        branch = git_layout.branch(repo)
        if branch is None:
            raise GitFailed("No branch is checked out (a detached HEAD): there is nothing to push.")
        return await self._repo.push(repo, branch, trusted=trusted)

    async def pull_request(self, session_id: str, title: str, body: str) -> tuple[str, bool]:
        """(address, created): `gh pr create` when `gh` is installed and logged in, else the
        hosting site's compare page for the person to open (`created` false)."""
        _, repo, _ = await self._open(session_id)
        branch = git_layout.branch(repo)
        if branch is None:
            raise GitFailed("No branch is checked out (a detached HEAD): there is nothing to propose.")
        upstream = await self._repo.upstream(repo)
        remotes = await self._repo.remotes(repo)
        remote = next((r for r in remotes if upstream and upstream.startswith(r + "/")), None)
        if remote is None:
            raise NoRemote(f"Push {branch} first: it is not on a remote yet.")
        site = hosted(await self._repo.remote_url(repo, remote))
        if site is None:
            raise NoRemote(
                f"The remote {remote} is not on a hosting site, so there is no pull request page for it."
            )
        base = self._base_of(str(repo.top)) or await self._repo.remote_default(repo, remote) or "main"
        program = gh_program()
        if program is not None and await gh_logged_in(program, repo.top):
            created, said = await gh_create(program, repo.top, base, branch, title, body)
            if not created:
                raise GitFailed("gh could not open the pull request.", said)
            return said, True
        return compare_url(site, base, branch, title, body), False


async def _collect(chunks: Any) -> str:
    blocks: dict[int, Any] = {}
    async with aclosing(chunks) as stream:
        async for raw in stream:
            chunk: Any = raw if isinstance(raw, BaseModel) else STREAM_CHUNK.validate_python(raw)
            if isinstance(chunk, BlockEndChunk):
                blocks[chunk.index] = chunk.block
    return "\n".join(b.text for i in sorted(blocks) if isinstance(b := blocks[i], TextBlock))


def _clean(text: str) -> str:
    """The model's answer as a message: code fences and surrounding blank lines dropped."""
    lines = [line for line in text.strip().splitlines() if not line.strip().startswith("```")]
    return "\n".join(lines).strip()
