"""Prompt gates: the veto seam consulted before a turn accepts its opening prompt
(docs/architecture.md, "Prompt gates").

A gate is an async function given a `PromptCheck` (the session, the open turn's number, the
message, and `record` to log hook records inside that turn) that answers `None` (pass) or a
`Veto(reason)`. Gates run in registration order; the first veto wins and the rest are not asked.
A gate that raises vetoes (fail closed: a broken policy must not let prompts through), with the
error in the host's log.

Only turn-opening messages of a person (`source.kind == "user"`) or of the goal driver
(`"goal"`) are checked. A vetoed person's prompt is logged as `prompt/blocked {content, source,
reason}` before `turn/end {reason: {kind: blocked}}`; a vetoed goal round writes no
`prompt/blocked` (the goal driver blocks the goal instead).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.content import Message
from contract.events import SessionEvent
from host.engine.sessions.events import NewEvent

log = logging.getLogger(__name__)

CHECKED_SOURCES = frozenset({"user", "goal"})
DEFAULT_REASON = "A prompt check refused this prompt."


@dataclass(frozen=True)
class Veto:
    reason: str = DEFAULT_REASON


@dataclass(frozen=True)
class PromptCheck:
    """What a gate sees: the prompt that would open turn `turn` of `session_id`."""

    session_id: str
    cwd: Path
    turn: int
    message: Message
    record: Callable[[NewEvent[Any]], SessionEvent]
    """Appends an event inside the open turn (a hook bridge's `hook/invoked` / `hook/result`)."""

    @property
    def human(self) -> bool:
        return self.message.source.kind == "user"


PromptGate = Callable[[PromptCheck], Awaitable[Veto | None]]
Admitted = Callable[[str, Message], None]
"""(session id, message): a turn's opening message was appended to the log."""


class PromptGates:
    """The ordered list of gates (one per engine; every session's turns consult it)."""

    def __init__(self) -> None:
        self._gates: list[tuple[PromptGate, frozenset[str]]] = []
        self._admitted: list[Admitted] = []
        self._active: dict[PromptGate, Callable[[], bool]] = {}
        """A gate's cheap "anything to check?" (the hooks' gate: is a UserPromptSubmit file there):
        an idle gate keeps the one-write opening."""

    def add(
        self,
        gate: PromptGate,
        sources: frozenset[str] = CHECKED_SOURCES,
        active: Callable[[], bool] | None = None,
    ) -> Callable[[], None]:
        """Append a gate asked for messages of these source kinds (a subset of `user`, `goal`),
        only while `active()` says so (default: always); returns the function that removes it."""
        entry = (gate, frozenset(sources) & CHECKED_SOURCES)
        self._gates.append(entry)
        if active is not None:
            self._active[gate] = active

        def remove() -> None:
            if entry in self._gates:
                self._gates.remove(entry)

        return remove

    def on_admitted(self, listener: Admitted) -> None:
        """Be told of every opening message a turn accepted (after the gates, if any)."""
        self._admitted.append(listener)

    def admitted(self, session_id: str, message: Message) -> None:
        for listener in self._admitted:
            listener(session_id, message)

    def applies(self, message: Message) -> bool:
        kind = message.source.kind
        return any(kind in sources and self._on(gate) for gate, sources in self._gates)

    def _on(self, gate: PromptGate) -> bool:
        active = self._active.get(gate)
        return active is None or active()

    async def check(self, check: PromptCheck) -> Veto | None:
        kind = check.message.source.kind
        for gate, sources in list(self._gates):
            if kind not in sources or not self._on(gate):
                continue
            try:
                veto = await gate(check)
            except Exception as exc:
                log.exception("a prompt gate failed in session %s", check.session_id)
                return Veto(f"A prompt check failed ({type(exc).__name__}); the prompt was not sent.")
            if veto is not None:
                return Veto(veto.reason.strip() or DEFAULT_REASON)
        return None
