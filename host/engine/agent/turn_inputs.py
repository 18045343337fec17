"""What a turn is given: the session's record (`Conversation`), its agent's inbox (`Inbox`) and the
services it calls (`TurnServices`), and how a failed turn reads (`readable`). Kept apart from
the turn loop (host/engine/agent/turn.py) so that each stays one job."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from contract.content import AttachmentRef, Message
from contract.events import RequestHeader
from contract.questions import AnswerSet, Question
from contract.sessions import ModelSelection
from host.engine.agent.pending import PendingTable
from host.engine.agent.prompt_gates import PromptGates
from host.engine.agent.transcript import Surface
from host.engine.integrations.hooks.service import HookService
from host.engine.llm.base import LlmAdapter, LlmError
from host.engine.presets.composition import StepSetup
from host.engine.sessions.events import NewEvent
from host.engine.sessions.journal import Journal
from host.engine.tools.base import JobControl, Snapshot, SubagentControl, ToolOutput
from host.engine.tools.permissions.policy import SessionPermissions

log = logging.getLogger("host.engine.agent.turn")


class NoAdapter(Exception):
    """No adapter routes the selected provider."""


def readable(exc: Exception) -> str:
    """What a person reads when a turn fails: a provider's or the engine's own words; for
    anything else (a host bug) a plain sentence, with the details in the host's log."""
    if isinstance(exc, LlmError | NoAdapter):
        return str(exc) or type(exc).__name__
    log.error("a turn failed unexpectedly", exc_info=exc)
    return f"Something went wrong inside HarnessDesk ({type(exc).__name__}); the details are in its log."


@dataclass
class Conversation:
    """A session's running record: owned by its agent, extended by each of its turns."""

    journal: Journal
    surface: Surface
    """What the model sees, in order (the surface folded from the journal, extended live)."""
    last_header: RequestHeader | None = None
    """The newest `request/header`: a step logs one only when the selection changed."""

    @property
    def history(self) -> list[Message]:
        return self.surface.messages()


class Inbox(Protocol):
    """What a running turn asks its agent's input side: input due at a step checkpoint."""

    def claim_step(self) -> tuple[NewEvent[Any], list[Message]] | None:
        """Take every next-step message: the splice to log first, and the messages."""
        ...

    def claimed(self) -> None:
        """The claim is logged (the agent publishes its queue)."""
        ...

    def has_steering(self) -> bool: ...


@dataclass(frozen=True)
class TurnServices:
    """The session's services a turn calls; its agent builds them once."""

    session_id: str
    cwd: Path
    step_cap: int
    prepare: Callable[[list[Message]], Awaitable[StepSetup]]
    """Each step's tools, system prompt and added context, given the messages the step claimed
    (the session's composition: docs/architecture.md, "Agent presets")."""
    selection: Callable[[], ModelSelection]
    adapter_for: Callable[[str], LlmAdapter | None]
    pending: PendingTable
    commit: Callable[[], None]
    """Ends the store's current write batch (after every step)."""
    load_attachment: Callable[[AttachmentRef], Awaitable[bytes | None]]
    ask_user: Callable[[list[Question]], Awaitable[AnswerSet]]
    policy: SessionPermissions
    """The session's permission preset and "Allow always" rules: asked before every tool call."""
    grant: Callable[[str, str], None]
    """Records, host-side, an "Allow always" rule `(tool, scope)` for the rest of the session."""
    context_window: Callable[[ModelSelection], int]
    """Tokens the selected model holds (docs/decisions.md, "Long sessions")."""
    report_context: Callable[[int, int], None]
    """(estimated prompt tokens, window) after each answer and compaction (the top bar's meter)."""
    jobs: JobControl | None
    """The session's background jobs, for the tools."""
    notice: Callable[[str], None]
    """Injects a notice as context for the next step (the inject lane)."""
    checkpoint: Callable[[int, str, Snapshot], Awaitable[None]]
    """Keeps a file's content before the turn's first change to it (`FileCheckpoints.before`)."""
    subagents: SubagentControl | None = None
    """Starts child sessions for the `task` tool (None in a subagent)."""
    watch: Callable[..., Awaitable[ToolOutput]] | None = None
    """`(turn, tool, run, interrupted)`: runs a tool call between the folder's snapshots when it may
    change files; `interrupted(changes)` gets what a cancelled call had changed (`Snapshotter.step`:
    docs/architecture.md, "Snapshots")."""
    gates: PromptGates | None = None
    """The prompt gates asked before the opening prompt is accepted (host/engine/agent/prompt_gates.py)."""
    hooks: HookService | None = None
    """PreToolUse / PostToolUse hooks around every tool call (host/engine/integrations/hooks/)."""
    rejoin: Callable[[], Awaitable[None]] | None = None
    """Awaited after an approval was answered: a turn that gave its slot back while it waited
    queues for one again before it goes on (docs/decisions/automations.md)."""
