"""Agents SDK tools for the protocol tests (imports `agents`: load it only where needed)."""

from __future__ import annotations

import agents


@agents.function_tool
def sdk_user(ctx: agents.RunContextWrapper[dict[str, str]]) -> str:
    """Who is calling (an agents.FunctionTool)."""
    return ctx.context["user"]
