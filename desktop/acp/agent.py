"""`HarnessAcpAgent`: the ACP agent side, spoken over HarnessDesk's own API client.

It holds no engine: every action is a contract call (`session.create`, `session.prompt`,
`session.history`, `command.execute`, …) through an `AbstractApiClient`, so an ACP session is an
ordinary session on the same store, whichever carrier reaches the host (docs/decisions.md,
"ACP bridge").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

import acp
from acp.helpers import update_available_commands, update_current_mode
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    AvailableCommandInput,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionListCapabilities,
    UnstructuredCommandInput,
)

from contract import __version__
from contract.methods import (
    COMMAND_EXECUTE,
    COMMAND_LIST,
    MCP_ADD_EDITOR_SERVERS,
    SESSION_CANCEL,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_LIST,
    SESSION_MODELS,
    SESSION_PROMPT,
    SESSION_SELECT_MODEL,
    WORKSPACE_CREATE,
    AnyMethod,
    Method,
    Req,
    Val,
)
from contract.rpc import RpcErr
from desktop.acp.approvals import ask_permission, decline_question
from desktop.acp.options import config_options, editor_servers, mode_state, model_value, parse_model_value
from desktop.acp.prompt import prompt_content
from desktop.acp.session import AcpSession, iso_time
from host.fetch.client import AbstractApiClient

log = logging.getLogger("desktop.acp")


class CallFailed(Exception):
    """A contract call answered an RpcError: its code and message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class HarnessAcpAgent:
    """One ACP connection: several sessions, one `events.mux` stream routing their frames."""

    def __init__(self, client: AbstractApiClient) -> None:
        self.client = client
        self.conn: Any = None
        self.sessions: dict[str, AcpSession] = {}
        self._mux: asyncio.Task[None] | None = None
        self._mux_ready = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()

    # ---- plumbing ----------------------------------------------------------------------------

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def call(self, method: Method[Req, Val], payload: dict[str, Any]) -> Val:
        answer = await self.client.call(method, payload)
        if isinstance(answer.result, RpcErr):
            raise CallFailed(answer.result.error.code, answer.result.error.message)
        return answer.result.value

    async def _ensure_mux(self) -> None:
        if self._mux is None:
            self._mux = asyncio.create_task(self._route_frames(), name="acp-mux")
        await asyncio.wait_for(self._mux_ready.wait(), 30)

    async def _route_frames(self) -> None:
        """Read `events.mux` for the connection's life; each frame goes to its session."""
        try:
            async with self.client.stream("events.mux") as frames:
                self._mux_ready.set()
                async for rpc_id, frame in frames:
                    self._route(rpc_id, frame)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the host went away: every open prompt ends with the reason
            log.warning("the host's event stream ended: %s", exc)
            for session in self.sessions.values():
                session.fail(f"the host's event stream ended: {exc}")

    def _route(self, rpc_id: str, frame: Any) -> None:
        session = self.sessions.get(getattr(frame, "session_id", ""))
        if session is None:
            return
        if frame.type == "session/event":
            session.on_event(frame.event)
        elif frame.type == "approval/requested":
            self._spawn(ask_permission(self.conn, self.client, session, rpc_id, frame))
        elif frame.type == "question/requested":
            self._spawn(decline_question(self.client, rpc_id))

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_log_failure)

    async def close(self) -> None:
        """The editor went away: running turns stop; the sessions stay stored."""
        for sid, session in list(self.sessions.items()):
            if session.prompting:
                with contextlib.suppress(Exception):
                    await self.call(SESSION_CANCEL, {"sessionId": sid})
            await session.close()
        for task in [*self._tasks, *([self._mux] if self._mux else [])]:
            task.cancel()

    # ---- ACP methods -------------------------------------------------------------------------

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True, audio=False),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(), close=SessionCloseCapabilities()
                ),
            ),
            agent_info=Implementation(name="harnessdesk", title="HarnessDesk", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **_: Any) -> None:
        return None

    async def new_session(
        self, cwd: str, additional_directories: list[str] | None = None, mcp_servers: Any = None, **_: Any
    ) -> NewSessionResponse:
        folder = _absolute(cwd)
        if additional_directories:
            raise acp.RequestError.invalid_params({"detail": "additionalDirectories is not supported"})
        servers = editor_servers(mcp_servers)
        await self._ensure_mux()
        workspace = await self._workspace_for(folder)
        created = await self._checked(SESSION_CREATE, {"workspaceId": workspace, "origin": "acp"})
        session = self._adopt(created["sessionId"], folder, last_turn=-1)
        await self._add_servers(session.id, servers)
        modes, options = await self._modes_and_options(session.id)
        self._spawn(self._announce_commands(session))
        return NewSessionResponse(session_id=session.id, modes=modes, config_options=options)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any
    ) -> LoadSessionResponse:
        folder = _absolute(cwd)
        servers = editor_servers(mcp_servers)
        await self._ensure_mux()
        row = await self._summary(session_id)
        if row is None:
            raise acp.RequestError.invalid_params({"detail": f"no session {session_id}"})
        if row.get("cwd") and Path(row["cwd"]) != Path(folder):
            raise acp.RequestError.invalid_params({"detail": f"session {session_id} works in {row['cwd']}"})
        session = self.sessions.get(session_id) or self._adopt(session_id, folder, last_turn=-1)
        await self._add_servers(session_id, servers)
        events = await self._whole_history(session_id)
        session.replay(events)
        await session.flushed()
        modes, options = await self._modes_and_options(session_id)
        self._spawn(self._announce_commands(session))
        return LoadSessionResponse(modes=modes, config_options=options)

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> ListSessionsResponse:
        listed = await self._checked(SESSION_LIST, {})
        rows = [r for r in listed["items"] if r.get("cwd") and r.get("origin") != "subagent"]
        if cwd is not None:
            rows = [r for r in rows if Path(r["cwd"]) == Path(cwd)]
        infos = [
            acp.schema.SessionInfo(
                session_id=r["sessionId"],
                cwd=r["cwd"],
                title=r.get("title"),
                updated_at=iso_time(r["updatedAt"]),
            )
            for r in rows
        ]
        return ListSessionsResponse(sessions=infos)

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        session = self._owned(session_id)
        if session.prompting:
            raise acp.RequestError.invalid_params(
                {"detail": "busy: a prompt is already running in this session"}
            )
        content = prompt_content(prompt)
        if not content:
            raise acp.RequestError.invalid_params({"detail": "the prompt is empty"})
        outcome = session.begin_prompt()
        try:
            await self._checked(
                SESSION_PROMPT, {"sessionId": session_id, "mode": "queue", "content": content}
            )
        except BaseException:
            session.end_prompt()
            raise
        try:
            reason = await outcome
        finally:
            session.end_prompt()
        await session.flushed()  # every update of the turn is written before the answer
        if reason.startswith("error:"):
            raise acp.RequestError.internal_error({"detail": reason[len("error:") :].strip()})
        return PromptResponse(stop_reason=reason)  # type: ignore[arg-type]  # a StopReason by construction

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is None:
            return  # unknown ids are no-ops
        session.cancelling = True
        with contextlib.suppress(CallFailed):
            await self.call(SESSION_CANCEL, {"sessionId": session_id})

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> None:
        session = self._owned(session_id)
        await self._switch_mode(session, mode_id)

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool, **_: Any) -> Any:
        session = self._owned(session_id)
        if config_id == "mode" and isinstance(value, str):
            await self._switch_mode(session, value)
        elif config_id == "model" and isinstance(value, str):
            provider, model = parse_model_value(value)
            await self._checked(
                SESSION_SELECT_MODEL, {"sessionId": session_id, "provider": provider, "model": model}
            )
        else:
            raise acp.RequestError.invalid_params({"detail": f"no config option {config_id!r}"})
        _, options = await self._modes_and_options(session_id)
        return acp.schema.SetSessionConfigOptionResponse(config_options=options)

    async def close_session(self, session_id: str, **_: Any) -> None:
        session = self.sessions.pop(session_id, None)
        if session is not None:
            await session.close()

    # ---- helpers -----------------------------------------------------------------------------

    async def _checked(self, method: AnyMethod, payload: dict[str, Any]) -> dict[str, Any]:
        """A call whose RpcError becomes the JSON-RPC error an editor can show."""
        try:
            value = await self.call(method, payload)
        except CallFailed as exc:
            if exc.code in {"bad-request", "session-not-found", "agent-busy", "model-unavailable"}:
                raise acp.RequestError.invalid_params({"detail": str(exc), "code": exc.code}) from exc
            raise acp.RequestError.internal_error({"detail": str(exc), "code": exc.code}) from exc
        return dict(value.dump() if hasattr(value, "dump") else value)

    def _owned(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise acp.RequestError.invalid_params({"detail": f"session {session_id} is not open here"})
        return session

    def _adopt(self, session_id: str, cwd: str, last_turn: int) -> AcpSession:
        session = AcpSession(session_id, cwd, self._send_update, last_turn)
        self.sessions[session_id] = session
        return session

    async def _send_update(self, session_id: str, update: Any) -> None:
        await self.conn.session_update(session_id=session_id, update=update)

    async def _add_servers(self, session_id: str, servers: dict[str, dict[str, Any]]) -> None:
        """The editor's MCP servers join the session's project (started now; a failed one shows
        its error in the app's MCP panel and gives no tools, as any server)."""
        if servers:
            await self._checked(MCP_ADD_EDITOR_SERVERS, {"sessionId": session_id, "mcpServers": servers})

    async def _workspace_for(self, folder: str) -> str:
        """The workspace of that folder (`workspace.create` answers the existing one too)."""
        created = await self._checked(WORKSPACE_CREATE, {"path": folder})
        return str(created["workspace"]["workspaceId"])

    async def _summary(self, session_id: str) -> dict[str, Any] | None:
        listed = await self._checked(SESSION_LIST, {})
        return next((r for r in listed["items"] if r["sessionId"] == session_id), None)

    async def _whole_history(self, session_id: str) -> list[Any]:
        """Every stored event, oldest first, paged backwards through `session.history`."""
        pages: list[list[Any]] = []
        before: int | None = None
        while True:
            payload: dict[str, Any] = {"sessionId": session_id, "maxMessages": 500}
            if before is not None:
                payload["beforeSeq"] = before
            answer = await self.client.call(SESSION_HISTORY, payload)
            if isinstance(answer.result, RpcErr):
                raise acp.RequestError.invalid_params({"detail": answer.result.error.message})
            value = answer.result.value
            events = [e.event for e in value.events]
            pages.append(events)
            if not value.has_more or not events:
                break
            before = events[0].seq
        return [e for page in reversed(pages) for e in page]

    async def _modes_and_options(self, session_id: str) -> tuple[Any, list[Any]]:
        history = await self.client.call(SESSION_HISTORY, {"sessionId": session_id, "maxMessages": 1})
        projections: dict[str, Any] = {}
        if not isinstance(history.result, RpcErr) and history.result.value.projections is not None:
            projections = history.result.value.projections.values
        models = await self.client.call(SESSION_MODELS, {"sessionId": session_id})
        catalogue = None if isinstance(models.result, RpcErr) else models.result.value
        permissions = projections.get("permissions") or {}
        return mode_state(permissions), config_options(permissions, catalogue)

    async def _switch_mode(self, session: AcpSession, mode_id: str) -> None:
        answer = await self._checked(
            COMMAND_EXECUTE, {"sessionId": session.id, "line": f"/permission {mode_id}"}
        )
        if not answer.get("matched"):
            raise acp.RequestError.invalid_params({"detail": f"no mode {mode_id!r}"})
        failure = await session.command_outcome(answer["commandId"])
        if failure is not None:
            raise acp.RequestError.invalid_params({"detail": failure})
        session.push(update_current_mode(mode_id))
        _, options = await self._modes_and_options(session.id)
        session.push(
            acp.schema.ConfigOptionUpdate(session_update="config_option_update", config_options=options)
        )

    async def _announce_commands(self, session: AcpSession) -> None:
        await asyncio.sleep(0.05)  # after the new/load response has gone out (bounded)
        listed = await self.call(COMMAND_LIST, {"sessionId": session.id})
        commands = [
            AvailableCommand(
                name=c.name,
                description=c.description,
                input=AvailableCommandInput(root=UnstructuredCommandInput(hint=c.input.hint))
                if c.input
                else None,
            )
            for c in listed.commands
        ]
        session.push(update_available_commands(commands))


def _absolute(cwd: str) -> str:
    if not Path(cwd).is_absolute():
        raise acp.RequestError.invalid_params({"detail": f"cwd must be an absolute path, not {cwd!r}"})
    return str(Path(cwd))


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("ACP task failed: %s", task.exception())


__all__ = ["HarnessAcpAgent", "model_value"]
