"""The server behind the subscription tests: one resource to follow, and a tool that says it
changed (on the process the tool runs on)."""

from __future__ import annotations

import os

from toolwire import Server

server = Server("subscribing", version="1.0")


@server.resource("watched://doc")
def doc() -> str:
    """A document clients follow."""
    return f"served by {os.getpid()}"


@server.tool
def touch() -> str:
    """Announce that the document changed."""
    server.notify_resource_updated("watched://doc")
    return "touched"
