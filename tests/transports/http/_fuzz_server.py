"""The server the HTTP bad-input and session-memory tests run as a subprocess.

    python tests/transports/http/_fuzz_server.py --port N [--stateless] [--json-response]
        [--idle-timeout S] [--max-sessions N] [--auth]

`--auth`: bearer tokens `alice-token` and `bob-token` are accepted (as "alice" and "bob"),
so a session created by one caller can be presented by the other.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from toolwire import Identity, Server, ToolContext


def _verify(token: str) -> Identity | None:
    name = token.removesuffix("-token")
    return Identity(subject=name) if token in ("alice-token", "bob-token") else None


def build(auth: bool) -> Server:
    server = Server("fuzz", auth=_verify if auth else None)

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    async def drip(ctx: ToolContext[Any], steps: int, delay: float) -> str:
        """Report progress `steps` times, `delay` seconds apart, then answer."""
        for step in range(steps):
            await ctx.report_progress(step + 1, steps)
            await asyncio.sleep(delay)
        return f"dripped {steps}"

    @server.tool
    async def flood(ctx: ToolContext[Any], count: int, size: int) -> str:
        """Report progress `count` times at once, each with a message of `size` characters."""
        text = "x" * size
        for step in range(count):
            await ctx.report_progress(step + 1, count, text)
            FLOODED[0] = step + 1
        return f"flooded {count}"

    @server.tool
    async def flooded() -> int:
        """How many progress reports `flood` has made so far."""
        return FLOODED[0]

    return server


FLOODED = [0]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--idle-timeout", type=float, default=1800.0)
    parser.add_argument("--max-sessions", type=int, default=10_000)
    parser.add_argument("--auth", action="store_true")
    args = parser.parse_args()
    build(args.auth).run(
        "http",
        host="127.0.0.1",
        port=args.port,
        stateless=args.stateless,
        json_response=args.json_response,
        session_idle_timeout=args.idle_timeout,
        max_sessions=args.max_sessions,
    )
