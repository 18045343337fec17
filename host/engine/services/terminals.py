"""`engine.terminals`: the person's shells beside a session (docs/decisions.md, "Terminal and
files"); the methods are `terminal.*`, all privileged (contract/methods.py).

A terminal starts in its session's folder (the worktree, for a session that has one: the folder
the session works in), lives until it is closed, its session is deleted or the host stops, and
outlives the clients: a page that reloads or reconnects attaches again and replays the
scrollback. The host's end kills every shell (and a SIGKILL of the host kills them through their
supervisors' parent-death signal).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import secrets
from collections.abc import Awaitable, Callable

from contract.terminals import TerminalAttachValue, TerminalClosed, TerminalInfo, TerminalOutput
from host.engine.errors import HostActionFailed, TerminalNotFound
from host.engine.terminals.flow import Flow
from host.engine.terminals.shell import login_shell, start
from host.engine.terminals.terminal import InputRefused, Terminal
from host.workers import TOOL_WORKERS

log = logging.getLogger(__name__)

MAX_TERMINALS = 32
"""Terminals one host keeps open at once (each is a shell and a supervisor)."""


class Terminals:
    """The person's shells beside a session (`terminal.*`, over `host/engine/terminals/`).

    `folder_of(session_id)` is the folder a session works in (SessionNotFound for none);
    `publish(frame, weight)` puts a frame on the mux stream; `unread()` is the output the mux's
    slowest subscriber has not taken yet (the flow marks' first measure)."""

    def __init__(
        self,
        folder_of: Callable[[str], Awaitable[str]],
        publish: Callable[[TerminalOutput | TerminalClosed, int], None],
        unread: Callable[[], int],
    ) -> None:
        self._folder_of = folder_of
        self._publish = publish
        self._unread = unread
        self._terminals: dict[str, Terminal] = {}
        self._closing = False

    async def open(self, session_id: str, cols: int, rows: int) -> str:
        """A new terminal in the session's folder running the person's login shell."""
        folder = await self._folder_of(session_id)
        if self._closing:
            raise HostActionFailed("The host is shutting down.")
        if not await TOOL_WORKERS.run(os.path.isdir, folder):
            raise HostActionFailed(f"The session's folder {folder} does not exist.")
        if len(self._terminals) >= MAX_TERMINALS:
            raise HostActionFailed(f"{MAX_TERMINALS} terminals are open already: close one first.")
        shell = login_shell()
        try:
            master, proc = await start(shell, folder, cols, rows)
        except OSError as exc:
            raise HostActionFailed(f"The terminal did not start: {exc.strerror or exc}") from exc
        terminal_id = f"t-{secrets.token_hex(6)}"
        self._terminals[terminal_id] = Terminal(
            terminal_id=terminal_id,
            session_id=session_id,
            cwd=folder,
            shell=shell,
            master=master,
            proc=proc,
            cols=cols,
            rows=rows,
            publish=self._publish,
            flow=Flow(self._unread),
        )
        return terminal_id

    def _get(self, terminal_id: str) -> Terminal:
        found = self._terminals.get(terminal_id)
        if found is None:
            raise TerminalNotFound(terminal_id)
        return found

    def input(self, terminal_id: str, data: str) -> None:
        try:
            self._get(terminal_id).write(data.encode("utf-8", "surrogatepass"))
        except InputRefused as exc:
            raise HostActionFailed(str(exc)) from exc

    def resize(self, terminal_id: str, cols: int, rows: int) -> None:
        self._get(terminal_id).resize(cols, rows)

    def attach(self, terminal_id: str, viewer: str | None) -> TerminalAttachValue:
        terminal = self._get(terminal_id)
        data, seq = terminal.attach(viewer)
        return TerminalAttachValue(
            scrollback=base64.b64encode(data).decode("ascii"),
            seq=seq,
            alive=terminal.alive,
            cols=terminal.cols,
            rows=terminal.rows,
        )

    def ack(self, terminal_id: str, viewer: str, seq: int) -> None:
        self._get(terminal_id).ack(viewer, seq)

    async def list(self, session_id: str) -> list[TerminalInfo]:
        """The session's terminals, oldest first (an unknown session: SessionNotFound)."""
        await self._folder_of(session_id)
        return [t.info() for t in self._terminals.values() if t.session_id == session_id]

    async def close(self, terminal_id: str) -> None:
        terminal = self._get(terminal_id)
        self._terminals.pop(terminal_id, None)
        await terminal.close()

    async def session_removed(self, session_id: str) -> None:
        """A deleted session's terminals end with it."""
        ending = [t for t in self._terminals.values() if t.session_id == session_id]
        for t in ending:
            self._terminals.pop(t.terminal_id, None)
        await asyncio.gather(*(t.close() for t in ending), return_exceptions=True)

    async def close_all(self) -> None:
        """The host stops: every shell ends (at once, each within the supervisor's bounds)."""
        self._closing = True
        ending = list(self._terminals.values())
        self._terminals.clear()
        for result in await asyncio.gather(*(t.close() for t in ending), return_exceptions=True):
            if isinstance(result, BaseException):
                log.warning("a terminal did not close cleanly: %s", result)
