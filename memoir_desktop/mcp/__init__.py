"""The MCP server other AI tools use to read the journal's memories (official `mcp` SDK)."""
