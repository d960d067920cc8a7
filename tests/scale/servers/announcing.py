"""The server behind the cross-process notice and answer tests: its tools announce changes on
the process they run on, and ask the client questions from there."""

from __future__ import annotations

import os
from typing import Any

from toolwire import Server, ToolContext

server = Server("announcing", version="1.0")

ANSWER_FORM = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "who": {"type": "string"}},
    "required": ["n"],
}


@server.resource("watched://{name}")
def doc(name: str) -> str:
    """Documents clients follow."""
    return f"{name}, served by {os.getpid()}"


@server.tool
def touch(uri: str) -> str:
    """Announce that the resource at `uri` changed (from this process)."""
    server.notify_resource_updated(uri)
    return f"{os.getpid()}: touched {uri}"


@server.tool
def publish_resource(uri: str) -> str:
    """Publish one more resource on this process (the resource list changes)."""
    server.add_resource(uri, f"added by {os.getpid()}")
    return f"{os.getpid()}: published {uri}"


@server.tool
def publish_prompt(name: str) -> str:
    """Publish one more prompt on this process (the prompt list changes)."""

    def extra() -> str:
        return name

    server.add_prompt(extra, name=name)
    return f"{os.getpid()}: published prompt {name}"


@server.tool
async def ask(ctx: ToolContext[Any], n: int) -> str:
    """Ask the client for a form holding `n`; say which process asked and what came back."""
    answer = await ctx.elicit(f"question {n}", ANSWER_FORM, timeout=60)
    return f"{os.getpid()}:{n}:{answer.action}:{answer.content}"


@server.tool
async def ask_model(ctx: ToolContext[Any], n: int) -> str:
    """Have the client's model complete a prompt naming `n`."""
    answer = await ctx.sample(f"prompt {n}", max_tokens=10, timeout=60)
    return f"{os.getpid()}:{n}:{answer.text}"
