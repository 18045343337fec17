"""An ACP client built on the SDK's own client side, spawning the real `harnessdesk acp`.

The only double is the scripted OpenAI-compatible provider on loopback behind the host.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    Implementation,
    RequestPermissionResponse,
)

from tests.api.support import cli_env, harnessdesk
from tests.support.scripted_llm import ScriptedLlmServer

WAIT = 60.0
"""Bound on every wait for the agent (a shared, loaded machine)."""


@dataclass
class RecordingClient:
    """Records every `session/update`; answers permission requests from a script."""

    answers: list[str] = field(default_factory=list)
    """Option ids to pick, in order; `cancel` answers cancelled; empty: reject_once."""
    fail_permissions: bool = False
    """Answer every permission request with a JSON-RPC error (as the SDK's example client does)."""
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permissions: list[Any] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))
        self.changed.set()

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **_: Any) -> Any:
        self.permissions.append(tool_call)
        self.changed.set()
        if self.fail_permissions:
            raise acp.RequestError.method_not_found("session/request_permission")
        choice = self.answers.pop(0) if self.answers else "reject_once"
        if choice == "cancel":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=choice))

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [u.session_update for sid, u in self.updates if session_id is None or sid == session_id]

    def text(self, kind: str = "agent_message_chunk", session_id: str | None = None) -> str:
        return "".join(
            u.content.text
            for sid, u in self.updates
            if u.session_update == kind and (session_id is None or sid == session_id)
        )

    async def wait_for(self, predicate: Any, bound: float = WAIT) -> None:
        async with asyncio.timeout(bound):
            while not predicate():
                self.changed.clear()
                await self.changed.wait()


def acp_command(data_dir: Path, llm: ScriptedLlmServer) -> list[str]:
    return [
        *harnessdesk(),
        "acp",
        "--data-dir",
        str(data_dir),
        "--provider",
        "openai-compatible",
        "--base-url",
        llm.base_url,
        "--model",
        "scripted-small",
    ]


@contextlib.asynccontextmanager
async def acp_agent(
    client: RecordingClient, data_dir: Path, llm: ScriptedLlmServer, cwd: Path
) -> AsyncIterator[tuple[Any, Any]]:
    """A connected, initialized SDK client on a fresh `harnessdesk acp` process."""
    command = acp_command(data_dir, llm)
    # RecordingClient answers the requests the agent sends; it does not subclass the SDK's Client
    spawned = acp.spawn_agent_process(client, command[0], *command[1:], cwd=cwd, env=cli_env())  # type: ignore[arg-type]
    async with (
        spawned as (
            conn,
            proc,
        )
    ):
        init = await asyncio.wait_for(
            conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(),
                client_info=Implementation(name="pytest", version="1"),
            ),
            WAIT,
        )
        conn.init = init  # type: ignore[attr-defined]  # the tests read the handshake's answer off the connection
        yield conn, proc
