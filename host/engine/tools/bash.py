"""The bash tool: one command under a supervisor, with a timeout and an output cap.

The command runs as `/bin/bash -c COMMAND` in the session's cwd with stdin closed, stderr merged
into stdout and an environment without credentials (host/engine/sandbox/secret_values.py). It runs below
a small supervisor process (host/procs/supervise.py, a Linux child subreaper): on timeout or
cancel the supervisor kills every descendant, even one that left the process group with
`setsid`, then exits; if it does not within a bound, the host finds the tree in /proc and kills it
(host/procs/tree.py). Output keeps its head
and tail and says how much of the middle was cut.

With `run_in_background: true` the command becomes a background job (host/engine/tools/background_jobs.py): it
starts the same way, the call returns its job id at once, and its output goes to a file.

When the session runs sandboxed, `ctx.sandbox` is the policy and bash runs inside bubblewrap
(host/engine/sandbox/); a command the sandbox stopped gets a note the model can act on ("blocked
by the sandbox: …"), and `network` / `outside_sandbox` ask the user to let one command out
(docs/decisions.md, "Sandbox and the four modes").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from asyncio.subprocess import Process
from typing import Any

from pydantic import Field

from host import procs
from host.engine.sandbox import SandboxPolicy, SandboxUnavailable, wrap
from host.engine.sandbox.git_guard import move_planted_commondir
from host.engine.sandbox.secret_values import child_environment
from host.engine.tools.base import ToolContext, ToolOutput
from host.engine.tools.common import Args, BaseTool, ToolError
from host.engine.tools.permissions.sandboxing import blocked_hint
from host.procs.tree import CommandTree

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
MAX_OUTPUT_CHARS = 30_000
SUPERVISOR_BOUND = 5.0
"""How long the supervisor may take to kill the tree before the host kills it and the tree."""
FALLBACK_BOUND = 5.0
"""How long the host keeps killing a tree whose supervisor missed its bound (docs/decisions.md)."""
DRAIN_AFTER_EXIT = 1.0
SHELL = "/bin/bash" if os.path.exists("/bin/bash") else (shutil.which("bash") or "/bin/sh")


class BashArgs(Args):
    command: str = Field(min_length=1, description="The shell command line (run with bash -c).")
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT,
        description=f"Seconds before it is killed (default {DEFAULT_TIMEOUT:g}, max {MAX_TIMEOUT:g}).",
    )
    run_in_background: bool = Field(
        default=False,
        description=(
            "Start it as a background job and return its job id at once (for servers, watchers,"
            " long builds). Read its output with job_output; you are told when it ends. No timeout."
        ),
    )
    network: bool = Field(
        default=False,
        description=(
            "The command needs the network (a download, an install): asks the user, then runs this one"
            " command in the sandbox with network. Only where the session has no network."
        ),
    )
    outside_sandbox: bool = Field(
        default=False,
        description=(
            "The command must write outside the folder or reach what the sandbox hides: asks the user,"
            " then runs this one command without the sandbox. Only after it failed inside."
        ),
    )


def command_environment() -> dict[str, str]:
    """The environment of a command the agent runs: no credentials, no pagers or prompts."""
    return {**child_environment(), "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}


def supervised(command: str, end_leftovers: bool = False, sandbox: SandboxPolicy | None = None) -> list[str]:
    """The argv that runs `command` with bash below the supervisor, inside the sandbox when a
    policy is given (the supervisor stays outside: it signals every process of the sandbox on
    timeout or cancel). Raises SandboxUnavailable rather than running it bare."""
    flags = ["--end-leftovers"] if end_leftovers else []
    shell = [SHELL, "-c", command]
    return procs.command("supervise", *flags, *(wrap(shell, sandbox) if sandbox is not None else shell))


class OutputCapture:
    """Keeps the first and last bytes of a stream of any length, and counts the rest."""

    def __init__(self, limit_chars: int = MAX_OUTPUT_CHARS) -> None:
        self.half = limit_chars // 2
        self._keep = limit_chars * 2  # bytes per side: enough for the chars even if multi-byte
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self._keep - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self._keep:
                del self.tail[: len(self.tail) - self._keep]

    async def read_from(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self.feed(chunk)

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        dropped_bytes = self.total - len(self.head) - len(self.tail)
        if dropped_bytes == 0 and len(head) + len(tail) <= 2 * self.half:
            return head + tail
        if dropped_bytes == 0:
            whole = head + tail
            cut = len(whole) - 2 * self.half
            return (
                f"{whole[: self.half]}\n\n[… {cut} characters cut from the middle …]\n\n{whole[-self.half :]}"
            )
        kept_head, kept_tail = head[: self.half], tail[-self.half :]
        return (
            f"{kept_head}\n\n[… output cut: {self.total} bytes in total, only the first {len(kept_head)} and"
            f" last {len(kept_tail)} characters are shown …]\n\n{kept_tail}"
        )


async def exited(proc: Process) -> int:
    """The exit status as soon as bash exits. (`Process.wait()` on Python 3.11 also waits for
    the output pipe to close, which a backgrounded child can hold open for ever.)"""
    while proc.returncode is None:  # noqa: ASYNC110 - the child watcher sets it; no event to await
        await asyncio.sleep(0.02)
    return proc.returncode


def _close_pipes(proc: Process) -> None:
    """Stops listening to a pipe that a surviving background process still holds open."""
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


async def terminate(proc: Process) -> None:
    """The supervisor kills the whole tree (SIGTERM, a grace, SIGKILL) and exits; if it has not
    within a bound, the host kills the tree itself: every process below the supervisor or in a
    session or group the tree was seen in, even one that left with `setsid` (host/procs/tree.py),
    then the supervisor."""
    tree = CommandTree(proc.pid)
    await asyncio.to_thread(tree.scan)  # the sessions it made, in case the supervisor loses them
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(exited(proc), SUPERVISOR_BOUND)
    except TimeoutError:
        if proc.returncode is None:  # still unreaped: its pid, session and group are still ours
            await asyncio.to_thread(tree.kill, FALLBACK_BOUND)
        await asyncio.wait_for(exited(proc), SUPERVISOR_BOUND)


async def start_shielded(argv: list[str], **options: Any) -> Process:
    """Start a supervisor (`asyncio.create_subprocess_exec(*argv, **options)`). A cancel while
    asyncio is still connecting its pipes would make asyncio SIGKILL the supervisor, orphaning
    what it already started (a `setsid` tree among them): the start is shielded, and a cancel
    then ends the tree the ordinary way before it is raised (docs/decisions.md, "A cancelled
    command's whole tree dies")."""
    started = asyncio.ensure_future(asyncio.create_subprocess_exec(*argv, **options))
    try:
        return await asyncio.shield(started)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            proc = await started
            await terminate(proc)
            _close_pipes(proc)
        raise


async def spawn(argv: list[str], ctx: ToolContext) -> Process:
    """The bash tool's supervisor, its output on a pipe."""
    return await start_shielded(
        argv,
        cwd=ctx.cwd,
        env=command_environment(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )


class BashTool(BaseTool):
    name = "bash"
    description = (
        "Run a shell command with bash in the working directory (stdin is closed; stdout and stderr are"
        f" merged; output over {MAX_OUTPUT_CHARS} characters keeps its head and tail). Default timeout"
        f" {DEFAULT_TIMEOUT:g}s, max {MAX_TIMEOUT:g}s; on timeout the command and its children are killed."
        " Set run_in_background for a server, watcher or long build: it returns a job id at once."
    )
    needs_approval = True
    Arguments = BashArgs

    async def execute(self, args: BashArgs, ctx: ToolContext) -> ToolOutput:
        if not ctx.cwd.is_dir():
            raise ToolError(f"The working directory {ctx.cwd} does not exist.", "NOT_FOUND")
        if args.run_in_background:
            return await self._background(args.command, ctx)
        timeout = args.timeout or DEFAULT_TIMEOUT
        try:
            argv = supervised(args.command, sandbox=ctx.sandbox)
        except SandboxUnavailable as exc:
            raise ToolError(f"{exc} The command did not run.", "SANDBOX_UNAVAILABLE") from exc
        proc = await spawn(argv, ctx)
        assert proc.stdout is not None
        capture = OutputCapture()
        reader = asyncio.create_task(capture.read_from(proc.stdout))
        try:
            try:
                code = await asyncio.wait_for(exited(proc), timeout)
            except TimeoutError:
                await self._terminate(proc)
                if not await self._drain(reader, DRAIN_AFTER_EXIT):
                    _close_pipes(proc)
                note = f"[timed out after {timeout:g}s: the command and its process group were killed]"
                return ToolOutput(_join(capture.text(), note), True, "TIMEOUT")
        except asyncio.CancelledError:
            reader.cancel()
            with contextlib.suppress(BaseException):
                await self._terminate(proc)
            _close_pipes(proc)
            raise
        lingering = not await self._drain(reader, DRAIN_AFTER_EXIT)
        if lingering:
            _close_pipes(proc)
        notes = []
        if code != 0:
            notes.append(f"[exit code: {code}]")
        sandbox = ctx.sandbox
        hint = blocked_hint(capture.text(), ctx.cwd, sandbox.write, sandbox.network) if sandbox else None
        if hint and code != 0:
            notes.append(hint)
        if lingering:
            notes.append(
                "[background processes still hold the output open; their later output is not captured]"
            )
        if sandbox is not None and sandbox.write:
            moved = move_planted_commondir(sandbox.workspace)
            if moved:
                notes.append(f"[{moved}]")
        return ToolOutput(_join(capture.text(), *notes))

    async def _terminate(self, proc: Process) -> None:
        await terminate(proc)

    async def _background(self, command: str, ctx: ToolContext) -> ToolOutput:
        if ctx.jobs is None:
            raise ToolError("Background jobs are not available in this session.", "UNAVAILABLE")
        try:
            job = await ctx.jobs.start(command, ctx.cwd, ctx.sandbox)
        except SandboxUnavailable as exc:
            raise ToolError(f"{exc} The command did not run.", "SANDBOX_UNAVAILABLE") from exc
        return ToolOutput(
            f"Started background job {job.id}. It keeps running after this call; its output is"
            f' captured: read it with job_output {{"jobId": "{job.id}"}}, stop it with job_stop.'
            " You will be told when it ends."
        )

    async def _drain(self, reader: asyncio.Task[None], seconds: float) -> bool:
        """Waits for the output to reach EOF; False (and stops reading) if it stays open."""
        done, _ = await asyncio.wait({reader}, timeout=seconds)
        if reader in done:
            return True
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        return False


def _join(output: str, *notes: str) -> str:
    text = output.rstrip("\n") if output.strip() else "(no output)"
    return "\n".join([text, *notes])
