"""The slash-path errors of `session.prompt` (docs/architecture.md, "Errors"): a known command
that reported a usage or state error, and a leading-`/` prompt that names no command."""

from __future__ import annotations

from contract.errors import NoDetails
from host.engine.errors import EngineError


class CommandError(EngineError[NoDetails]):
    """A known slash command reported a usage or state error; the message is its own text."""

    code = "command-error"

    def __init__(self, message: str) -> None:
        super().__init__(message, NoDetails())


class UnknownCommand(EngineError[NoDetails]):
    """A leading-`/` prompt named no registered command; the message names the token."""

    code = "unknown-command"

    def __init__(self, token: str) -> None:
        super().__init__(f"unknown command /{token}", NoDetails())
