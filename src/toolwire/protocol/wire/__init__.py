"""The MCP wire: JSON-RPC frames, the two protocol eras, content blocks, icons."""
