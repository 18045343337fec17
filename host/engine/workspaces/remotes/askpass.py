"""Passphrases and passwords for ssh, asked in the window (docs/decisions.md, "Remote hosts").

ssh runs with `SSH_ASKPASS` naming a small program of ours and `SSH_ASKPASS_REQUIRE=force`, so
whatever it would ask on a terminal (a key's passphrase, a password, a confirmation for an agent
key) comes here instead: the program hands the prompt to this host over a private Unix socket,
the host asks the window (`remote/secret-requested`, answered like an approval) and prints the
answer for ssh. Nothing is stored: the answer lives only in this exchange. Each connection gets
its own key in the program's environment, so only the ssh this host started can ask, and only
for its own host.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from host.askpass_client import KEY_ENV, SOCKET_ENV

log = logging.getLogger(__name__)

ANSWER_BOUND = 300.0
"""Seconds a prompt waits for the person (ssh's own login grace is longer)."""

Ask = Callable[[str, str, bool], Awaitable[str | None]]
"""(host id, ssh's prompt, echo) → the answer, or None when nobody answered."""


class AskpassServer:
    """The host's end: one Unix socket in the private control folder, one key per connection."""

    def __init__(self, folder: Path, ask: Ask) -> None:
        self.socket_path = folder / "askpass.sock"
        self.program = folder / "askpass"
        self._ask = ask
        self._keys: dict[str, str] = {}
        """key → host id."""
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.socket_path))
        os.chmod(self.socket_path, 0o600)
        write_program(self.program)

    def environment(self, host_id: str) -> dict[str, str]:
        """What ssh needs to ask through us for `host_id` (a fresh key each time)."""
        key = secrets.token_urlsafe(24)
        self._keys[key] = host_id
        return {
            "SSH_ASKPASS": str(self.program),
            "SSH_ASKPASS_REQUIRE": "force",
            SOCKET_ENV: str(self.socket_path),
            KEY_ENV: key,
        }

    def forget(self, host_id: str) -> None:
        for key in [k for k, h in self._keys.items() if h == host_id]:
            del self._keys[key]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
        with contextlib.suppress(OSError):
            self.socket_path.unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10)
            asked = json.loads(line or b"{}")
            host_id = self._keys.get(str(asked.get("key", "")))
            answer = None
            if host_id is not None:
                answer = await self._ask(host_id, str(asked.get("prompt", ""))[:500], bool(asked.get("echo")))
            writer.write((json.dumps({"answer": answer}) + "\n").encode())
            await writer.drain()
        except (OSError, ValueError, TimeoutError) as exc:
            log.info("an askpass exchange failed: %s", exc)
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


def write_program(path: Path) -> None:
    """The program ssh runs (0700): this Python with `client_main`, or the frozen app's `askpass`."""
    if getattr(sys, "frozen", False):
        body = f'exec "{sys.executable}" askpass "$@"\n'
    else:
        code = "import sys; from host.askpass_client import client_main; sys.exit(client_main(sys.argv[1:]))"
        body = f'exec "{sys.executable}" -c \'{code}\' "$@"\n'
        root = Path(__file__).resolve().parents[3]
        body = f'PYTHONPATH="{root}${{PYTHONPATH:+:$PYTHONPATH}}" {body}'
    tmp = path.with_suffix(".tmp")
    tmp.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    os.chmod(tmp, 0o700)
    os.replace(tmp, path)
