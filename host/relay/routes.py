"""Which host a call is for: the session → host and workspace → host tables, filled from what the
remote hosts answer and send (session and workspace ids are minted unique, so one table serves
every host), and the answerable requests each host asked (for `/api/respond`)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

ROUTED_FIELDS = ("session_id", "parent_session_id", "child_session_id", "workspace_id", "terminal_id")
"""Request fields that name something living on one host (a remote session's terminal runs
there: docs/decisions.md, "Terminal and files")."""
REMEMBER_RPCS = 10_000


class RouteTable:
    def __init__(self) -> None:
        self.sessions: dict[str, str] = {}
        self.workspaces: dict[str, str] = {}
        self.terminals: dict[str, str] = {}
        self.rpcs: OrderedDict[str, str] = OrderedDict()
        """rpcId of a remote's answerable request → its host (the newest kept)."""

    def host_of(self, payload: Any) -> str | None:
        """The remote host a request's payload names through a session or workspace; None: here."""
        for field in ROUTED_FIELDS:
            value = getattr(payload, field, None)
            if isinstance(value, str):
                table = {"workspace_id": self.workspaces, "terminal_id": self.terminals}.get(
                    field, self.sessions
                )
                if value in table:
                    return table[value]
        return None

    def session(self, session_id: str | None, host_id: str) -> None:
        if session_id:
            self.sessions[session_id] = host_id

    def workspace(self, workspace_id: str | None, host_id: str) -> None:
        if workspace_id:
            self.workspaces[workspace_id] = host_id

    def terminal(self, terminal_id: str | None, host_id: str) -> None:
        if terminal_id:
            self.terminals[terminal_id] = host_id

    def asked(self, rpc_id: str, host_id: str) -> None:
        self.rpcs[rpc_id] = host_id
        self.rpcs.move_to_end(rpc_id)
        while len(self.rpcs) > REMEMBER_RPCS:
            self.rpcs.popitem(last=False)

    def record_value(self, key: str, value: Any, host_id: str) -> None:
        """Remember what a relayed answer made or listed there (wire JSON of the value)."""
        if not isinstance(value, dict):
            return
        if key in ("session.create", "session.fork"):
            self.session(value.get("sessionId"), host_id)
        elif key == "session.import":
            for sid in value.get("sessionIds") or []:
                self.session(sid, host_id)
            self.workspace(value.get("workspaceId"), host_id)
        elif key == "session.list":
            for item in value.get("items") or []:
                if isinstance(item, dict):
                    self.session(item.get("sessionId"), host_id)
        elif key == "workspace.create":
            workspace = value.get("workspace") or {}
            self.workspace(workspace.get("workspaceId"), host_id)
            for sid in workspace.get("sessionIds") or []:
                self.session(sid, host_id)
        elif key == "terminal.open":
            self.terminal(value.get("terminalId"), host_id)
        elif key == "terminal.list":
            for terminal in value.get("items") or []:
                if isinstance(terminal, dict):
                    self.terminal(terminal.get("terminalId"), host_id)
        elif key == "workspace.list":
            for workspace in value.get("items") or []:
                if isinstance(workspace, dict):
                    self.workspace(workspace.get("workspaceId"), host_id)

    def record_frame(self, frame: Any, host_id: str) -> None:
        """A frame from a remote host: the sessions it names live there."""
        self.session(getattr(frame, "session_id", None), host_id)
        subagent = getattr(frame, "subagent", None)
        self.session(getattr(subagent, "session_id", None), host_id)
        self.session(getattr(frame, "parent_session_id", None), host_id)
        self.terminal(getattr(frame, "terminal_id", None), host_id)
