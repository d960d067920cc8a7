"""The `whoami` tool of docs/server.md, verbatim, served with a context; plus tools named both ways.

`WHOAMI_CONTEXT` picks where `ctx.context` comes from: "value" (default, `context=`),
"factory" (a sync `context_factory`), "async-factory", or "lifespan" (what the lifespan
yields). tests/interop/test_served_context.py checks that the function below is the documented one.
"""

# ruff: noqa: I001  (the documented import line is kept as written)
# No `from __future__ import annotations`: the documented code runs without it.

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from toolwire import CallInfo, Server

# --- docs/server.md: start (kept verbatim) ---
from toolwire import function_tool, ToolContext


@function_tool
async def whoami(ctx: ToolContext[dict], greeting: str) -> str:
    """Greet the current user.

    Args:
        greeting: How to say hello.
    """
    return f"{greeting}, {ctx.context['user']}"


# --- docs/server.md: end ---


def _user(call: CallInfo) -> dict[str, Any]:
    return {"user": "ada"}


async def _user_later(call: CallInfo) -> dict[str, Any]:
    return {"user": "ada"}


@asynccontextmanager
async def _lifespan(server: Server) -> AsyncIterator[dict[str, Any]]:
    yield {"user": "ada"}


_MODE = os.environ.get("WHOAMI_CONTEXT", "value")
_OPTIONS: dict[str, dict[str, Any]] = {
    "value": {"context": {"user": "ada"}},
    "factory": {"context_factory": _user},
    "async-factory": {"context_factory": _user_later},
    "lifespan": {"lifespan": _lifespan},
}

server = Server("whoami", tools=[whoami], **_OPTIONS[_MODE])


@server.tool(name="shout", description="Greet the current user loudly.")
def greet_loudly(ctx: ToolContext[dict], greeting: str) -> str:
    """Not what the listing says.

    Args:
        greeting: How to say hello.
    """
    return f"{greeting.upper()}, {ctx.context['user'].upper()}!"


@server.tool(name_override="whisper", description_override="Greet the current user softly.")
def greet_softly(ctx: ToolContext[dict], greeting: str) -> str:
    """Not what the listing says either."""
    return f"{greeting.lower()}, {ctx.context['user'].lower()}..."


def _wave(ctx: ToolContext[dict]) -> str:
    """Wave."""
    return f"*waves at {ctx.context['user']}*"


server.add_tool(function_tool(_wave), name="wave", description="Wave at the current user.")

if __name__ == "__main__":
    server.run()
