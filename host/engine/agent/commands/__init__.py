"""Slash commands: a registry any feature adds to, and the built-in ones."""

from host.engine.agent.commands.errors import CommandError, UnknownCommand
from host.engine.agent.commands.registry import (
    Command,
    CommandContext,
    CommandRegistry,
    CommandResult,
    failure,
    parse_line,
    success,
)
from host.engine.agent.commands.run import execute

__all__ = [
    "Command",
    "CommandContext",
    "CommandError",
    "CommandRegistry",
    "CommandResult",
    "UnknownCommand",
    "execute",
    "failure",
    "parse_line",
    "success",
]
