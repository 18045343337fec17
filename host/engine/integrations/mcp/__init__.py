"""MCP servers: their configuration, connections, tools and resources (docs/decisions.md, "MCP
servers")."""
