"""The server behind the Redis tests: answers say which process gave them, and one tool
changes the tool list of the process it runs on."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from toolwire import CallInfo, Server, ToolContext


def _context(info: CallInfo) -> dict[str, Any]:
    # What the session's record carries (the client's info) reaches the tools: a session
    # rebuilt on another process must still know who its client is.
    return {"client": (info.client_info or {}).get("name")}


server = Server("shared", version="1.0", context_factory=_context)

# Neither tool changes anything: a client may repeat a call whose answer was lost.
SAFE_TO_REPEAT = {"readOnlyHint": True, "idempotentHint": True}


@server.tool(annotations=SAFE_TO_REPEAT)
def whoami(n: int = 0) -> str:
    """This process's pid, and `n` back (so a caller can match answers to calls)."""
    return f"{os.getpid()}:{n}"


@server.tool(annotations=SAFE_TO_REPEAT)
def client_name(ctx: ToolContext[dict[str, Any]]) -> str:
    """The `clientInfo.name` of the calling session, as this process knows it."""
    return f"{os.getpid()}:{ctx.context['client']}"


@server.tool
async def long_story(ctx: ToolContext[Any], parts: int = 3) -> str:
    """Tell `parts` parts as log messages, ending the SSE response after the first (the
    client resumes with Last-Event-ID), then answer."""
    await ctx.info("part 1")
    await ctx.close_sse_stream()
    for part in range(2, parts + 1):
        await asyncio.sleep(0.05)
        await ctx.info(f"part {part}")
    return f"{os.getpid()}: told {parts} parts"


@server.tool
def grow(name: str) -> str:
    """Publish one more tool, `name`, on this process (its clients, and through the change
    bus every process's, hear that the list changed)."""

    def extra() -> str:
        return name

    server.add_tool(extra, name=name)
    return f"{os.getpid()}: added {name}"
