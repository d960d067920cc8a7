"""toolwire-patch: an MCP server that applies V4A and Codex patches atomically inside its roots."""

__version__ = "0.1.0"
