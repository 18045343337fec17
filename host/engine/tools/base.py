"""The tool protocol: what the agent loop needs from a tool (docs/architecture.md, "Tools")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from contract.content import AttachmentRef
from contract.filechange import FileChange, FileState
from contract.jobs import JobOutputValue, JobView
from contract.questions import AnswerSet, Question
from host.engine.sandbox import SandboxPolicy
from host.engine.sessions.events import NewEvent


@dataclass(frozen=True)
class Snapshot:
    """A file's content at one moment: `state` None means absent; `data` None with a state means
    too large to keep (only its hash is known). See `host/engine/tools/changes.py`."""

    state: FileState | None
    data: bytes | None = None


@dataclass(frozen=True)
class ToolOutput:
    content: str
    is_error: bool = False
    error_code: str | None = None
    """A short machine code for errors, e.g. `BAD_ARGUMENTS`, `PATH_ESCAPE`, `TIMEOUT`."""
    change: FileChange | None = None
    """The file the tool wrote (logged with the result, never sent to the model)."""
    changes: list[FileChange] | None = None
    """Files the step changed otherwise (a shell command), found by the snapshots around it."""
    snapshot_error: str | None = None
    """Why the snapshots around the step could not be taken: what it changed is not recorded."""
    image: AttachmentRef | None = None
    """An image the model reads with the result (read_image; stored once as an attachment)."""


class JobControl(Protocol):
    """The session's background jobs, as its tools see them (docs/architecture.md,
    "Background jobs"). Unknown ids raise `host.engine.errors.JobNotFound`."""

    async def start(self, command: str, cwd: Path, sandbox: SandboxPolicy | None = None) -> JobView: ...

    async def read(self, job_id: str, offset: int | None, limit: int) -> JobOutputValue: ...

    async def stop(self, job_id: str) -> JobView: ...

    def view(self, job_id: str) -> JobView: ...


class SubagentControl(Protocol):
    """The `task` tool's way into the engine (docs/architecture.md, "Subagents")."""

    async def run_task(
        self,
        call_id: str,
        description: str,
        prompt: str,
        preset: str | None,
        emit: Callable[[NewEvent[Any]], Awaitable[None]],
    ) -> ToolOutput:
        """Start a child session, run the prompt to its final answer and return that answer;
        cancelling the caller cancels the child."""
        ...


@dataclass
class ToolContext:
    """What a running tool may touch: its session's cwd and callbacks into the engine."""

    session_id: str
    cwd: Path
    ask_user: Callable[[list[Question]], Awaitable[AnswerSet]]
    """Publishes a question and waits for the first valid answer; raises CancelledError on cancel."""
    emit: Callable[[NewEvent[Any]], Awaitable[None]]
    """Appends a session event (e.g. `todo/write`) in order with the turn's other events."""
    jobs: JobControl | None = None
    """The session's background jobs (None where there are none, e.g. a bare tool test)."""
    checkpoint: Callable[[str, Snapshot], Awaitable[None]] | None = None
    """Called before a tool changes a file (its path as shown, what it holds now): the turn keeps
    the content of its first change to each file (docs/architecture.md, "Checkpoints and undo")."""
    subagents: SubagentControl | None = None
    """Starts child sessions (None where a session may not delegate, e.g. in a subagent)."""
    call_id: str | None = None
    """The id of the tool call being run."""
    sandbox: SandboxPolicy | None = None
    """What a command of this call runs under (None: no sandbox — Full access, an approved run
    outside it, or a machine without one where every command asked)."""


class Tool(Protocol):
    name: str
    description: str
    parameters: dict[str, Any]
    """JSON Schema of the arguments (also sent to the model)."""
    needs_approval: bool

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        """Run with already-parsed arguments; validation failures return an error output."""
        ...
