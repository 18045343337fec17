"""One terminal: a shell on a PTY, its output as frames, its input, its end (docs/decisions.md,
"Terminal and files").

Output is read on the event loop (`add_reader` on the PTY's master side), gathered for a few
milliseconds or up to one frame's bytes, kept in the scrollback and published as
`terminal/output` frames (`seq` = bytes so far). After each frame the flow marks are checked
(terminals/flow.py): over the high mark the reader is removed until the clients catch up.
Input is written as it comes; what the PTY does not take at once waits for it to be writable.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import logging
import os
import re
from asyncio.subprocess import Process
from collections.abc import Callable
from dataclasses import dataclass, field

from contract.terminals import FRAME_BYTES, SCROLLBACK_BYTES, TerminalClosed, TerminalInfo, TerminalOutput
from host.engine.terminals.flow import Flow
from host.engine.terminals.scrollback import Scrollback
from host.engine.terminals.shell import set_size, wait_exit
from host.engine.tools.bash import terminate

log = logging.getLogger(__name__)

GATHER = 0.004
"""Seconds output is gathered before a frame goes out (a burst becomes few frames)."""
RECHECK = 0.01
"""Seconds between two looks at the flow marks while reading is stopped."""
MAX_PENDING_INPUT = 1 << 20
"""Input bytes waiting for a shell that does not read them; more is refused."""
TITLE = re.compile(rb"\x1b\][02];([^\x07\x1b]{0,400})(?:\x07|\x1b\\)")
"""OSC 0 / OSC 2: the shell names its window."""

Publish = Callable[[TerminalOutput | TerminalClosed, int], None]
"""A frame onto the mux stream, with its weight (output bytes) for the flow marks."""


class InputRefused(Exception):
    """The shell has not read the input already waiting (the message says so)."""


@dataclass(eq=False)
class Terminal:
    terminal_id: str
    session_id: str
    cwd: str
    shell: str
    master: int
    proc: Process
    cols: int
    rows: int
    publish: Publish
    flow: Flow
    title: str = ""
    alive: bool = True
    exit_code: int | None = None
    closed: bool = False
    scrollback: Scrollback = field(default_factory=lambda: Scrollback(SCROLLBACK_BYTES))
    _pending: bytearray = field(default_factory=bytearray)
    _flush: asyncio.TimerHandle | None = None
    _reading: bool = False
    _recheck: asyncio.TimerHandle | None = None
    _input: bytearray = field(default_factory=bytearray)
    _writing: bool = False
    _waiter: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.title = self.title or os.path.basename(self.shell)
        self._loop = asyncio.get_running_loop()
        self._resume_reading()
        self._waiter = asyncio.create_task(self._wait_exit(), name=f"terminal {self.terminal_id}")

    # ---- what clients see --------------------------------------------------------------------

    def info(self) -> TerminalInfo:
        return TerminalInfo(
            terminal_id=self.terminal_id,
            cwd=self.cwd,
            title=self.title,
            alive=self.alive,
            exit_code=self.exit_code,
        )

    @property
    def seq(self) -> int:
        return self.scrollback.seq

    def attach(self, viewer: str | None) -> tuple[bytes, int]:
        """The scrollback and the seq it ends at; a named viewer is counted from there on."""
        self._flush_now()  # what was gathered goes out first: the answer ends at a frame boundary
        if viewer is not None:
            self.flow.attach(viewer, self.seq)
        return self.scrollback.snapshot(), self.seq

    def ack(self, viewer: str, seq: int) -> None:
        self.flow.ack(viewer, min(seq, self.seq))
        if not self._reading and self.alive:
            self._check_flow()

    # ---- output ------------------------------------------------------------------------------

    def _resume_reading(self) -> None:
        if self._reading or not self.alive:
            return
        self._reading = True
        self._loop.add_reader(self.master, self._readable)

    def _stop_reading(self) -> None:
        if self._reading:
            self._reading = False
            self._loop.remove_reader(self.master)

    def _readable(self) -> None:
        """Read what the PTY holds (up to one frame), then send or gather it."""
        try:
            while len(self._pending) < FRAME_BYTES:
                chunk = os.read(self.master, FRAME_BYTES)
                if not chunk:
                    self._ended()
                    return
                self._pending += chunk
        except BlockingIOError:
            pass
        except OSError as exc:  # EIO: every process of the PTY's other side is gone
            if exc.errno not in (errno.EIO, errno.EBADF):
                log.warning("terminal %s: reading failed: %s", self.terminal_id, exc)
            self._ended()
            return
        if len(self._pending) >= FRAME_BYTES:
            self._flush_now()
        elif self._pending and self._flush is None:
            self._flush = self._loop.call_later(GATHER, self._flush_now)

    def _flush_now(self) -> None:
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if not self._pending:
            return
        data = bytes(self._pending)
        self._pending.clear()
        if b"\x1b]" in data:
            found = TITLE.findall(data)
            if found:
                self.title = found[-1].decode("utf-8", "replace")[:200] or self.title
        for start in range(0, len(data), FRAME_BYTES):
            piece = data[start : start + FRAME_BYTES]
            self.flow.sending(self.seq)
            self.scrollback.append(piece)
            frame = TerminalOutput(
                terminal_id=self.terminal_id,
                session_id=self.session_id,
                seq=self.seq,
                data=base64.b64encode(piece).decode("ascii"),
            )
            self.publish(frame, len(piece))
        if self._reading and self.flow.over(self.seq):
            self._stop_reading()
            self._recheck = self._loop.call_later(RECHECK, self._check_flow)

    def _check_flow(self) -> None:
        """While reading is stopped: resume under the low mark, else look again soon."""
        if self._recheck is not None:
            self._recheck.cancel()
            self._recheck = None
        if self.closed or not self.alive:
            return
        if self.flow.under(self.seq):
            self._resume_reading()
        else:
            self._recheck = self._loop.call_later(RECHECK, self._check_flow)

    def _ended(self) -> None:
        """The PTY's other side closed: the last output goes out; the exit status follows."""
        self._stop_reading()
        self._flush_now()
        self.alive = False
        if self._recheck is not None:
            self._recheck.cancel()

    async def _wait_exit(self) -> None:
        code = await wait_exit(self.proc)
        if self.closed:
            return
        # the shell ended by itself: read what it still wrote, then say so
        with contextlib.suppress(OSError):
            while chunk := os.read(self.master, FRAME_BYTES):
                self._pending += chunk
        self._ended()
        self.exit_code = code
        self.publish(
            TerminalClosed(terminal_id=self.terminal_id, session_id=self.session_id, exit_code=code), 0
        )

    # ---- input -------------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Send `data` to the shell; InputRefused when it holds too much input unread already."""
        if not self.alive:
            return
        if len(self._input) + len(data) > MAX_PENDING_INPUT:
            raise InputRefused("The terminal is not reading its input (it already holds 1 MB).")
        self._input += data
        self._writable()

    def _writable(self) -> None:
        try:
            while self._input:
                sent = os.write(self.master, self._input[:65536])
                del self._input[:sent]
        except BlockingIOError:
            pass
        except OSError:
            self._input.clear()
        if self._input and not self._writing:
            self._writing = True
            self._loop.add_writer(self.master, self._writable)
        elif not self._input and self._writing:
            self._writing = False
            self._loop.remove_writer(self.master)

    def resize(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows
        if self.alive:
            with contextlib.suppress(OSError):
                set_size(self.master, cols, rows)

    # ---- the end -----------------------------------------------------------------------------

    async def close(self) -> None:
        """End the shell and everything started in it (the supervisor's SIGHUP, then SIGKILL),
        then free the PTY; says so on the mux stream unless the shell had ended already."""
        if self.closed:
            return
        self.closed = True
        was_alive = self.exit_code is None
        self._stop_reading()
        if self._writing:
            self._writing = False
            self._loop.remove_writer(self.master)
        for handle in (self._flush, self._recheck):
            if handle is not None:
                handle.cancel()
        if self.proc.returncode is None:
            try:
                await terminate(self.proc)
            except (OSError, TimeoutError):
                log.warning("terminal %s: its shell did not end in time", self.terminal_id)
        if self._waiter is not None:
            self._waiter.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._waiter
        self.alive = False
        with contextlib.suppress(OSError):
            os.close(self.master)
        if was_alive:
            self.publish(TerminalClosed(terminal_id=self.terminal_id, session_id=self.session_id), 0)
