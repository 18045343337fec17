"""Running one hook command: `/bin/sh -c`, in a process group of its own, in the sandbox when the
machine has one, JSON on stdin, a timeout that kills the group (docs/decisions.md, "Hooks")."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from host.engine.sandbox import Confinement, SandboxUnavailable, support, wrap

SAFE_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG")
OUTPUT_CAP = 1 << 20


@dataclass(frozen=True)
class Ran:
    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: float


def argv_for(command: str, cwd: Path, confinement: Confinement) -> list[str]:
    argv = ["/bin/sh", "-c", command]
    if not support().available:
        return argv
    try:
        return list(wrap(argv, confinement.policy(cwd, write=True, network=False)))
    except SandboxUnavailable:
        return argv


def hook_env(project: Path) -> dict[str, str]:
    """The scrubbed environment plus where the project is (no credentials reach a hook)."""
    env = {k: v for k in SAFE_ENV if (v := os.environ.get(k))}
    env["HARNESSDESK_PROJECT_DIR"] = env["CLAUDE_PROJECT_DIR"] = str(project)
    return env


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


async def run_hook(
    command: str, payload: bytes, cwd: Path, project: Path, bound: float, confinement: Confinement
) -> Ran:
    start = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv_for(command, cwd, confinement),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=str(cwd),
            env=hook_env(project),
            start_new_session=True,
        )
    except OSError as exc:
        return Ran(None, "", f"could not start: {exc}", (time.monotonic() - start) * 1000)
    try:
        out, err = await asyncio.wait_for(proc.communicate(payload), bound)
    except TimeoutError:
        _kill(proc)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 5)
        return Ran(None, "", f"timed out after {bound:g} s", (time.monotonic() - start) * 1000)
    except asyncio.CancelledError:
        _kill(proc)
        raise
    _kill(proc)  # whatever it left running in its group ends with it
    text = out[:OUTPUT_CAP].decode("utf-8", "replace"), err[:OUTPUT_CAP].decode("utf-8", "replace")
    return Ran(proc.returncode, text[0], text[1], (time.monotonic() - start) * 1000)
