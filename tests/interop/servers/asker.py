"""A toolwire server whose tool asks the client back: elicitation, then sampling.

Used over the network transports, whose handshake era carries requests to the client on
the session's stream (SSE) or the call's stream (streamable HTTP).
"""

from __future__ import annotations

from typing import Any

from toolwire import Server, ToolContext

server = Server("asker", version="0.1.0")


@server.tool
async def ask(ctx: ToolContext[Any], question: str) -> str:
    """Ask the user a question, then have the client's model say something.

    Args:
        question: What to ask.
    """
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    answer = await ctx.elicit(question, schema)
    reply = await ctx.sample("Say something", max_tokens=10)
    return f"{answer.action} {answer.content} {reply.text}"


if __name__ == "__main__":
    server.run()
