"""Streamable HTTP, both eras: the MCP endpoint, its sessions, answers and resumable streams."""
