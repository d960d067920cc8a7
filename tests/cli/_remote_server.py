"""The server `toolwire tools` / `toolwire call` are tested against (stdio, HTTP and SSE).

`CLI_CALL_LOG`, when set, names a file where `wipe` and `purge` write down each call they
receive. `wipe` has no annotations and `purge` is marked destructive: the CLI asks before
either, for a different reason.
"""

from __future__ import annotations

import asyncio
import base64
import os
from typing import Any

from toolwire import Server, ToolContext, ToolOutputImage

server = Server("cli-remote")

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
    "hKmMIQAAAABJRU5ErkJggg=="
)


@server.tool(annotations={"readOnlyHint": True})
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


@server.tool(annotations={"readOnlyHint": True})
async def slow(ctx: ToolContext[Any], steps: int = 3) -> str:
    """Count to `steps`, reporting progress at each step.

    Args:
        steps: How many steps.
    """
    for step in range(steps):
        await ctx.report_progress(step + 1, steps, f"step {step + 1}")
        await asyncio.sleep(0.05)
    return "finished"


@server.tool
def wipe(path: str) -> str:
    """Wipe a path (no annotations, so the CLI asks before calling it).

    Args:
        path: What to wipe.
    """
    log = os.environ.get("CLI_CALL_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(path + "\n")
    return f"wiped {path}"


@server.tool(annotations={"destructiveHint": True})
def purge(path: str) -> str:
    """Delete a path for good (marked destructive, so the CLI asks before calling it).

    Args:
        path: What to delete.
    """
    log = os.environ.get("CLI_CALL_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"purge {path}\n")
    return f"purged {path}"


@server.tool(annotations={"readOnlyHint": True})
def pic() -> ToolOutputImage:
    """A one-pixel picture."""
    return ToolOutputImage(image_url="data:image/png;base64," + base64.b64encode(PNG).decode())


@server.tool(annotations={"readOnlyHint": True}, strict_mode=False)
def loose(payload: dict[str, Any]) -> str:
    """Take any object (a schema OpenAI's strict mode refuses).

    Args:
        payload: Anything.
    """
    return str(sorted(payload))


@server.tool(annotations={"readOnlyHint": True})
def fail() -> str:
    """Always fail."""
    raise RuntimeError("the disk is on fire")


if __name__ == "__main__":
    server.run()
