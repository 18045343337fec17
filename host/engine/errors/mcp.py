"""MCP servers of a project or the user."""

from __future__ import annotations

from contract.errors import (
    McpServerDetails,
)
from host.engine.errors.base import EngineError


class McpServerNotFound(EngineError[McpServerDetails]):
    """No MCP server of that name for the session's (or workspace's) project, or not one that
    the call applies to (`mcp.approve` of a user server)."""

    code = "mcp-server-not-found"

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"MCP server {name!r}: {reason}", McpServerDetails(name=name, reason=reason))


class McpServerChanged(EngineError[McpServerDetails]):
    """`mcp.approve` named a digest the entry no longer has: the person saw another command."""

    code = "mcp-server-changed"

    def __init__(self, name: str) -> None:
        reason = "the entry changed since it was shown; look at it again"
        super().__init__(f"MCP server {name!r}: {reason}", McpServerDetails(name=name, reason=reason))
