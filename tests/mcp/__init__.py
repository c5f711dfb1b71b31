"""The MCP server: the SDK's own client against adecore-lsp mcp and real servers."""
