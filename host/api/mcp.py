"""`mcp.*`: a session's MCP servers, restart, enable/disable, and approving a project's server
(docs/decisions.md, "MCP servers"). The engine announces changes as `host/mcp-changed`."""

from __future__ import annotations

from contract import mcp as m
from contract.methods import (
    MCP_ADD_EDITOR_SERVERS,
    MCP_APPROVE,
    MCP_LIST,
    MCP_OPEN_USER_FILE,
    MCP_RESTART,
    MCP_SET_ENABLED,
)
from host.api.registry import implements
from host.engine.engine import Engine


@implements(MCP_LIST)
async def list_servers(engine: Engine, p: m.McpListRequest) -> m.McpListValue:
    return await engine.mcp.mcp_list(p.session_id)


@implements(MCP_ADD_EDITOR_SERVERS)
async def add_editor_servers(engine: Engine, p: m.McpAddEditorServersRequest) -> m.McpListValue:
    return await engine.mcp.mcp_add_editor_servers(p.session_id, p.mcp_servers)


@implements(MCP_RESTART)
async def restart(engine: Engine, p: m.McpServerRef) -> m.McpServerValue:
    return m.McpServerValue(server=await engine.mcp.mcp_restart(p.session_id, p.name))


@implements(MCP_SET_ENABLED)
async def set_enabled(engine: Engine, p: m.McpSetEnabledRequest) -> m.McpServerValue:
    return m.McpServerValue(server=await engine.mcp.mcp_set_enabled(p.session_id, p.name, p.enabled))


@implements(MCP_OPEN_USER_FILE)
async def open_user_file(engine: Engine, p: m.McpOpenUserFileRequest) -> m.McpOpened:
    return m.McpOpened(path=await engine.mcp.mcp_open_user_file())


@implements(MCP_APPROVE)
async def approve(engine: Engine, p: m.McpApproveRequest) -> m.McpApproved:
    return m.McpApproved(name=p.name, digest=await engine.mcp.mcp_approve(p.workspace_id, p.name, p.digest))
