"""The command registry: slash commands a person runs in a session, outside the model.

Registering one is one `Command` (docs/architecture.md, "Commands"):

    engine.commands.register(Command("compact", "Summarise older history", compact_handler))

A command may be limited to sessions where it makes sense (`available`); the effective
catalogue of a session is the registered commands available there, by name.
"""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from contract.commands import CommandDescriptor, CommandInput

if TYPE_CHECKING:
    from host.engine.agent.agent import Agent

LINE = re.compile(r"^/([a-z][a-z0-9_-]*)(?=$|[ \t\r\n])")


@dataclass(frozen=True)
class CommandResult:
    kind: Literal["success", "error"]
    text: str | None = None
    source_event_seq: int | None = None
    """Success only: an earlier event of the session with a richer presentation."""


def success(text: str | None = None, source_event_seq: int | None = None) -> CommandResult:
    return CommandResult("success", text, source_event_seq)


def failure(text: str) -> CommandResult:
    return CommandResult("error", text)


@dataclass(frozen=True)
class CommandContext:
    """What a handler gets: its session's agent (resumed if it was cold) and the raw input
    after the name (separating whitespace included)."""

    agent: Agent
    input: str
    command_id: str = ""
    """This run's id (what `command/run` logged), for events the handler writes."""

    @property
    def argument(self) -> str:
        return self.input.strip()


Handler = Callable[[CommandContext], Awaitable[CommandResult]]
Loosening = Callable[[CommandContext], str | None]
"""The change in words when this run would let more run without asking, else None."""


def _never_loosens(ctx: CommandContext) -> str | None:
    return None


def _always(agent: Agent) -> bool:
    return True


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    run: Handler
    hint: str | None = None
    """An input hint (e.g. `[off|message]`); None = the command takes no input."""
    available: Callable[[Agent], bool] = _always
    record_input: bool = True
    """False: `command/run` leaves the input out of the log."""
    loosens: Loosening = _never_loosens
    """A run that loosens is refused to a caller without privilege, before anything is logged
    (docs/decisions.md, "Loosening is privileged")."""

    def descriptor(self) -> CommandDescriptor:
        hint = CommandInput(hint=self.hint) if self.hint is not None else None
        return CommandDescriptor(name=self.name, description=self.description, input=hint)


def parse_line(line: str) -> tuple[str, str] | None:
    """(name, raw input) when `line` is a command line (slash at byte 0), else None."""
    match = LINE.match(line)
    if match is None:
        return None
    return match.group(1), line[match.end() :]


class CommandRegistry:
    def __init__(self, on_change: Callable[[], None] = lambda: None) -> None:
        self._commands: dict[str, Command] = {}
        self._on_change = on_change
        self._token = secrets.token_hex(6)
        self._counter = itertools.count(1)

    def register(self, command: Command) -> Callable[[], None]:
        """Add (or replace) a command; returns the function that unregisters it."""
        if not LINE.match("/" + command.name):
            raise ValueError(f"not a command name: {command.name!r}")
        self._commands[command.name] = command
        self._on_change()

        def unregister() -> None:
            if self._commands.get(command.name) is command:
                del self._commands[command.name]
                self._on_change()

        return unregister

    def catalogue(self, agent: Agent) -> list[Command]:
        """The commands available in this session, sorted by name."""
        return [c for _, c in sorted(self._commands.items()) if c.available(agent)]

    def find(self, agent: Agent, name: str) -> Command | None:
        command = self._commands.get(name)
        return command if command is not None and command.available(agent) else None

    def mint_id(self) -> str:
        """`cmd-<instance token>-<n>`: increasing here, unique across restarts."""
        return f"cmd-{self._token}-{next(self._counter)}"
