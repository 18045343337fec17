"""`mcp.*`: a session's MCP servers, restart, enable/disable, and approving a project's server
(docs/decisions.md, "MCP servers"). The engine announces changes as `host/mcp-changed`."""

from __future__ import annotations

from contract import mcp as m
from host.api.registry import implements
from host.engine.engine import Engine


@implements("mcp.list")
async def list_servers(engine: Engine, p: m.McpListRequest) -> m.McpListValue:
    return await engine.mcp.mcp_list(p.session_id)


@implements("mcp.addEditorServers")
async def add_editor_servers(engine: Engine, p: m.McpAddEditorServersRequest) -> m.McpListValue:
    return await engine.mcp.mcp_add_editor_servers(p.session_id, p.mcp_servers)


@implements("mcp.restart")
async def restart(engine: Engine, p: m.McpServerRef) -> m.McpServerValue:
    return m.McpServerValue(server=await engine.mcp.mcp_restart(p.session_id, p.name))


@implements("mcp.setEnabled")
async def set_enabled(engine: Engine, p: m.McpSetEnabledRequest) -> m.McpServerValue:
    return m.McpServerValue(server=await engine.mcp.mcp_set_enabled(p.session_id, p.name, p.enabled))


@implements("mcp.openUserFile")
async def open_user_file(engine: Engine, p: m.McpOpenUserFileRequest) -> m.McpOpened:
    return m.McpOpened(path=await engine.mcp.mcp_open_user_file())


@implements("mcp.approve")
async def approve(engine: Engine, p: m.McpApproveRequest) -> m.McpApproved:
    return m.McpApproved(name=p.name, digest=await engine.mcp.mcp_approve(p.workspace_id, p.name, p.digest))
