"""The `command.*` domain: slash commands the host runs for a person, outside the model.

`command.execute` is admission only: an unknown name or bad syntax answers `{matched: false}`
and logs nothing; a known one logs `command/run`, runs, logs `command/done` (which carries the
result text) and answers `{matched: true, commandId}`. Command lines and their output never
enter the model's history.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from contract._base import OpenModel, WireModel

COMMAND_NAME_PATTERN = r"^[a-z][a-z0-9_-]*$"


class CommandInput(WireModel):
    hint: str


class CommandDescriptor(WireModel):
    name: str = Field(min_length=1)
    """Lowercase, without the slash."""
    description: str
    input: CommandInput | None = None
    """Present when the command takes free text after its name."""


class CommandListRequest(WireModel):
    session_id: Annotated[str, Field(min_length=1, max_length=200)]


class CommandListValue(WireModel):
    commands: list[CommandDescriptor]
    """The session's effective catalogue, sorted by name."""


class CommandExecuteRequest(WireModel):
    session_id: Annotated[str, Field(min_length=1, max_length=200)]
    line: str = Field(max_length=100_000)


class CommandExecuteValue(WireModel):
    matched: bool
    command_id: str | None = None
    """Present exactly when `matched` is true; pairs the answer with `command/done`."""

    @model_validator(mode="after")
    def _id_when_matched(self) -> CommandExecuteValue:
        if self.matched != (self.command_id is not None):
            raise ValueError("commandId is present exactly when matched is true")
        return self


# ---- session events (log-only; never model input) -------------------------------------------


class CommandSource(OpenModel):
    kind: Literal["user"]


class CommandRun(OpenModel):
    """`command/run`: appended before the handler runs. `args` is the raw text after the name,
    separating whitespace included (left out when the command does not record its input)."""

    command_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    args: str | None = None
    source: CommandSource


CommandOutcome = Literal["success", "error", "interrupted"]
"""`interrupted`: written by crash repair for a command the host died running."""


class CommandDone(OpenModel):
    """`command/done`: appended when the handler settles (or by crash repair, `interrupted`);
    `sourceEventSeq` (success only) points at an earlier event with a richer presentation."""

    command_id: str = Field(min_length=1)
    kind: CommandOutcome
    text: str | None = None
    source_event_seq: int | None = Field(default=None, ge=0)


class PlanMode(OpenModel):
    """`plan/mode`: `/plan` turned the session's read-only planning mode on or off (log-only)."""

    active: bool
