"""The `terminal.*` domain: the person's own shell in a real PTY, beside a session
(docs/decisions.md, "Terminal and files").

A terminal belongs to a session and starts in its folder (its worktree, when it has one); it
runs the person's login shell on the host, outside the sandbox, with their rights, so every
method is privileged. Its output goes to every client on the mux stream as `terminal/output`
frames whose `seq` is the count of bytes the terminal has written so far (through the end of the
frame's data); `terminal.attach` answers the kept scrollback and the seq it ends at, so a client
that (re)connects replays it and keeps only frames after it. `terminal.ack` says how far a client
has drawn the output: the host stops reading the shell while a client that acknowledges is more
than a high mark behind (flow control: `cat` of a large file never floods a page).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from contract._base import WireModel
from contract.sessions import SessionId

TerminalId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_-]+$")]
MAX_COLS = 1000
MAX_ROWS = 500
MAX_INPUT_CHARS = 64 * 1024
"""Text one `terminal.input` carries; a longer paste is sent in pieces."""
SCROLLBACK_BYTES = 1 << 20
"""Output bytes a terminal keeps for `terminal.attach` (the newest)."""
FRAME_BYTES = 64 * 1024
"""Output bytes one `terminal/output` frame carries at most."""


class TerminalSize(WireModel):
    cols: int = Field(ge=2, le=MAX_COLS)
    rows: int = Field(ge=1, le=MAX_ROWS)


# terminal.open
class TerminalOpenRequest(TerminalSize):
    session_id: SessionId


class TerminalOpenValue(WireModel):
    terminal_id: str


class TerminalRef(WireModel):
    terminal_id: TerminalId


# terminal.input
class TerminalInputRequest(WireModel):
    terminal_id: TerminalId
    data: str = Field(max_length=MAX_INPUT_CHARS)
    """Text typed or pasted, as the terminal would receive it (UTF-8 on the PTY)."""


# terminal.resize
class TerminalResizeRequest(TerminalSize):
    terminal_id: TerminalId


class TerminalDone(WireModel):
    done: Literal[True] = True


# terminal.list
class TerminalListRequest(WireModel):
    session_id: SessionId


class TerminalInfo(WireModel):
    terminal_id: str
    cwd: str
    """The folder it started in."""
    title: str
    """What the shell last set as its title (OSC 0/2), else the shell's name."""
    alive: bool
    exit_code: int | None = None
    """Once it ended by itself: the shell's exit status."""


class TerminalListValue(WireModel):
    items: list[TerminalInfo]


# terminal.attach
class TerminalAttachRequest(WireModel):
    terminal_id: TerminalId
    viewer: str | None = Field(default=None, min_length=1, max_length=100)
    """A client that will acknowledge what it draws (`terminal.ack`) names itself; from then on
    the shell waits for it (flow control)."""


class TerminalAttachValue(WireModel):
    scrollback: str
    """Base64 of the newest output bytes kept (at most 1 MB), up to `seq`."""
    seq: int = Field(ge=0)
    """Bytes written through the end of `scrollback`: later frames have a larger seq."""
    alive: bool
    cols: int
    rows: int


# terminal.ack
class TerminalAckRequest(WireModel):
    terminal_id: TerminalId
    viewer: str = Field(min_length=1, max_length=100)
    seq: int = Field(ge=0)
    """The seq of the last output this viewer has drawn."""


class TerminalOutput(WireModel):
    """New output of a terminal (mux stream, every client)."""

    type: Literal["terminal/output"] = "terminal/output"
    terminal_id: str
    session_id: str
    seq: int
    """Bytes the terminal has written through the end of `data`."""
    data: str
    """Base64 of the bytes (at most `FRAME_BYTES`)."""


class TerminalClosed(WireModel):
    """A terminal ended: its shell exited (`exitCode`), or it was closed (with its session, by
    Close, or when the host stopped)."""

    type: Literal["terminal/closed"] = "terminal/closed"
    terminal_id: str
    session_id: str
    exit_code: int | None = None
