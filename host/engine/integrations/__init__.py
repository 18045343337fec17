"""What the person plugs in: MCP servers, hooks and language servers."""
