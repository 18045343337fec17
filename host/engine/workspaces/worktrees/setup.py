"""A workspace's setup command (`npm ci`, `uv sync`) run in a new worktree before its first turn
(docs/decisions.md, "Worktree sessions").

The command is the person's own (set with the privileged `worktree.configure`, never read from
the repository), and runs in the sandbox: the worktree writable with its share of the shared git
directory, the rest of the machine read-only, the data folder and the person's secrets masked —
with network, since installing dependencies needs it. It starts as soon as the worktree exists;
the session's first prompt waits for it (a prompt gate), and a failure refuses that first prompt
once with the command's last lines, so the person sees why before the agent works in a half-set-up
tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from host.engine.agent.prompt_gates import PromptCheck, Veto
from host.engine.sandbox import Confinement, SandboxUnavailable, wrap
from host.engine.sandbox.binds import SandboxBinds
from host.engine.sandbox.secret_values import child_environment

log = logging.getLogger(__name__)

SETUP_TIMEOUT = 20 * 60.0
TAIL_BYTES = 2000


@dataclass(frozen=True)
class SetupResult:
    ok: bool
    output: str


class SetupRuns:
    """The setup commands running (or finished, not yet awaited by a first prompt), by worktree."""

    def __init__(self, confinement: Confinement, worktree_of: Callable[[str], str | None]) -> None:
        self._confinement = confinement
        self._worktree_of = worktree_of
        self._runs: dict[str, asyncio.Task[SetupResult]] = {}

    def start(self, path: str, command: str, binds: SandboxBinds) -> None:
        task = asyncio.create_task(self._run(path, command, binds), name=f"worktree-setup {path}")
        task.add_done_callback(_logged)
        self._runs[path] = task

    def active(self) -> bool:
        return bool(self._runs)

    async def gate(self, check: PromptCheck) -> Veto | None:
        """Wait for the worktree's setup before its first turn; its failure refuses that turn."""
        path = self._worktree_of(str(check.cwd))
        task = self._runs.pop(path, None) if path is not None else None
        if task is None:
            return None
        result = await asyncio.shield(task)
        if result.ok:
            return None
        return Veto(f"The worktree's setup command failed, so this prompt was not sent:\n{result.output}")

    async def close(self) -> None:
        for task in self._runs.values():
            task.cancel()
        for task in list(self._runs.values()):
            with contextlib.suppress(BaseException):
                await task
        self._runs.clear()

    async def _run(self, path: str, command: str, binds: SandboxBinds) -> SetupResult:
        policy = self._confinement.policy(
            Path(path), write=True, network=True, writable=binds.writable, read_only=binds.read_only
        )
        try:
            argv = wrap(["/bin/sh", "-c", command], policy)
        except SandboxUnavailable as exc:
            return SetupResult(False, f"it runs only in the sandbox, and {exc}")
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=path,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=child_environment(),
                start_new_session=True,
            )
        except OSError as exc:
            return SetupResult(False, f"`{command}` could not start: {exc.strerror or exc}")
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), SETUP_TIMEOUT)
        except (TimeoutError, asyncio.CancelledError) as exc:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            await asyncio.shield(proc.wait())
            if isinstance(exc, asyncio.CancelledError):
                raise
            return SetupResult(False, f"`{command}` did not finish within {SETUP_TIMEOUT / 60:g} minutes")
        tail = out[-TAIL_BYTES:].decode("utf-8", "replace").strip()
        if proc.returncode != 0:
            return SetupResult(False, f"`{command}` ended with exit status {proc.returncode}:\n{tail}")
        return SetupResult(True, tail)


def _logged(task: asyncio.Task[SetupResult]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        log.error("a worktree setup command failed to run", exc_info=exc)
