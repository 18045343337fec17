"""What the person plugs in: MCP servers, hooks, language servers and the web search provider."""
