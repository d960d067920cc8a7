"""The server behind the scale-out tests: each answer says which process gave it."""

from __future__ import annotations

import os
from typing import Any

from toolwire import Server, ToolContext

server = Server("scale", version="1.0")

# Neither tool changes anything: a client may repeat a call whose answer was lost.
SAFE_TO_REPEAT = {"readOnlyHint": True, "idempotentHint": True}
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@server.tool(annotations=SAFE_TO_REPEAT)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool(annotations=SAFE_TO_REPEAT)
def whoami(n: int = 0) -> str:
    """This process's pid, and `n` back (so a caller can match answers to calls)."""
    return f"{os.getpid()}:{n}"


@server.tool
async def greet(ctx: ToolContext[Any]) -> str:
    """Ask for a name (an input-required round in the 2026-07-28 era), then greet, saying
    which process finished the call."""
    answer = await ctx.elicit("What is your name?", NAME_FORM, key="user_name")
    return f"Hello, {answer.content['name']}, from {os.getpid()}"
