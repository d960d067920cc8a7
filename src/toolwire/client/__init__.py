"""Client side of MCP: remote tools as local `FunctionTool`s."""
