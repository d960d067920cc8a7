"""An `mcp` 2.x `MCPServer` (the official SDK's decorated server) with a tool, a prompt and
a resource. `python official.py stdio | http PORT | sse PORT`."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("official")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


@server.resource("memo://today")
def today() -> str:
    """Today's memo."""
    return "nothing planned"


if __name__ == "__main__":
    kind = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if kind == "stdio":
        server.run("stdio")
    else:
        transport = "streamable-http" if kind == "http" else "sse"
        server.run(transport, host="127.0.0.1", port=int(sys.argv[2]))
