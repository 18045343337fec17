"""The `mcp.*` domain: a session's MCP tool servers, their state and the person's approvals
(docs/decisions.md, "MCP servers").

Status is live host state, never part of a session's log: what a session's log records about
MCP is what it records about any tool (`request/header.tools`, `tool/call`, `tool/result`,
`approval/*`). `host/mcp-changed {project}` says a project's servers changed: re-fetch `mcp.list`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from contract._base import WireModel
from contract.hooks import HookFileView
from contract.sessions import SessionId
from contract.workspaces import WorkspaceId

McpScope = Literal["user", "project", "override", "editor"]
McpTransport = Literal["stdio", "http", "sse"]
McpState = Literal["disabled", "needs-trust", "needs-approval", "starting", "ready", "failed", "stopped"]
ServerName = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]


class McpToolView(WireModel):
    name: str = Field(description="the public name the model calls: mcp__<server>__<tool>")
    raw_name: str = Field(description="the server's own name (what goes on the wire)")
    title: str | None = None
    description: str = ""
    read_only_hint: bool = Field(description="the server says so; it changes only the approval's wording")


class McpServerView(WireModel):
    name: str
    scope: McpScope
    transport: McpTransport
    state: McpState
    command_line: str = Field(description="the exact command line or URL as written, before expansion")
    source: str = Field(description="the file the entry comes from")
    digest: str = Field(description="sha256 of the entry's raw JSON: what an approval covers")
    enabled: bool
    network: bool = Field(description="stdio: whether the sandbox lets it reach the network")
    sandboxed: bool = Field(description="stdio: whether the running process is inside the sandbox")
    tools: list[McpToolView] = Field(default_factory=list)
    error: str | None = None
    stderr_tail: str | None = Field(default=None, description="the last 4 KiB of a stdio server's stderr")
    server_info: str | None = None
    warnings: list[str] = Field(default_factory=list)


# mcp.list
class McpListRequest(WireModel):
    session_id: SessionId


class McpListValue(WireModel):
    project: str = Field(description="the folder the project's files are read from")
    workspace_id: str | None = Field(default=None, description="the workspace that holds the session")
    trusted: bool
    servers: list[McpServerView]
    problems: list[str] = Field(default_factory=list, description="files that could not be read")
    hook_files: list[HookFileView] = Field(
        default_factory=list,
        description="the project's hook files, each approved or not (they run once trusted and approved)",
    )


# mcp.addEditorServers
class McpAddEditorServersRequest(WireModel):
    """Servers an editor passes over ACP (`session/new`, `session/load`), in the `.mcp.json`
    entry shape; they join the session's project as `editor` servers for the host's life."""

    session_id: SessionId
    mcp_servers: dict[str, dict[str, Any]] = Field(max_length=64)


# mcp.restart
class McpServerRef(WireModel):
    session_id: SessionId
    name: ServerName


# mcp.setEnabled
class McpSetEnabledRequest(WireModel):
    session_id: SessionId
    name: ServerName
    enabled: bool


class McpServerValue(WireModel):
    server: McpServerView


# mcp.approve (privileged)
class McpApproveRequest(WireModel):
    workspace_id: WorkspaceId
    name: ServerName
    digest: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="the digest the person saw; refused when the entry changed since",
    )


class McpApproved(WireModel):
    name: str
    digest: str


# mcp.openUserFile (privileged)
class McpOpenUserFileRequest(WireModel):
    """Never a path: the host opens its own `<data dir>/mcp.json` (written first when missing)."""


class McpOpened(WireModel):
    path: str


class HostMcpChanged(WireModel):
    """A project's MCP servers changed (state, tools, trust, approval): re-fetch `mcp.list`."""

    type: Literal["host/mcp-changed"] = "host/mcp-changed"
    project: str
