"""The server behind the follow tests: a tool that reports progress slowly, then answers with
the pid of the process that ran it."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from toolwire import Server, ToolContext

server = Server("slow-progress", version="1.0")


@server.tool
async def count_slowly(
    ctx: ToolContext[Any], steps: int = 10, pause: float = 0.3, close_after: int = 0
) -> str:
    """Report `steps` steps of progress, `pause` seconds apart, then answer; after step
    `close_after` (if any), end the SSE response (the client resumes with Last-Event-ID)."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        if step == close_after:
            await ctx.close_sse_stream()
        await asyncio.sleep(pause)
    return f"{os.getpid()}: counted {steps}"
