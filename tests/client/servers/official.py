"""An `mcp` 2.x `MCPServer` (the official SDK's decorated server) with a tool, a prompt and
a resource. `python official.py stdio | http PORT | sse PORT`."""

from __future__ import annotations

import json
import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("official")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


@server.tool()
def seen_headers(ctx: Context) -> str:
    """The request's Authorization and X-* headers, as JSON."""
    headers = dict(ctx.headers or {})
    kept = {k.lower(): v for k, v in headers.items()}
    return json.dumps(
        {k: v for k, v in sorted(kept.items()) if k == "authorization" or k.startswith("x-")}
    )


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
