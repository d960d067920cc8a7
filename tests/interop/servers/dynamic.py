"""A toolwire server whose tools change while it serves (for `subscriptions/listen` tests).

`grow(name)` publishes a new tool (an echo) named `name`; `shrink(name)` removes one. Both are
`async`, so `Server.add_tool`/`remove_tool` run on the event loop that serves the session.
"""

from __future__ import annotations

from toolwire import Server, function_tool

server = Server("dynamic", version="0.1.0", instructions="Tools come and go.")


@server.tool
async def grow(name: str) -> str:
    """Publish a new tool while serving.

    Args:
        name: The new tool's name.
    """

    def made(text: str) -> str:
        """Echo the text."""
        return text

    server.add_tool(function_tool(made, name_override=name))
    return f"added {name}"


@server.tool
async def shrink(name: str) -> str:
    """Stop publishing a tool.

    Args:
        name: The tool's name.
    """
    server.remove_tool(name)
    return f"removed {name}"


if __name__ == "__main__":
    server.run()
