"""toolwire-shell: an MCP server that runs shell commands with the Agents SDK's shell tool
semantics and never hangs, floods or leaves processes behind (see `server.py`)."""

from .server import ShellConfig, build_server

__all__ = ["ShellConfig", "build_server"]
