"""The MCP wire: JSON-RPC frames, the two protocol eras, content blocks, size limits, icons."""
