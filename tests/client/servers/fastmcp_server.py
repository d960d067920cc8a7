"""A FastMCP 4 server with two tools and a prompt. `python fastmcp_server.py stdio | http
PORT | sse PORT`."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from fastmcp import FastMCP

server = FastMCP("fast")


@server.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


@server.prompt
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    kind = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if kind == "stdio":
        server.run("stdio", show_banner=False)
    else:
        server.run(kind, host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
