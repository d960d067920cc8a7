"""A toolwire server with one tool per kind of result, built on the public API only.

Run it as `python tests/interop/servers/kitchen.py` (`server.run()`) or through the CLI,
`python -m toolwire run tests/interop/servers/kitchen.py`. The writes to stdout inside `echo`
are there on purpose: stdout belongs to the wire, so they must end up on stderr.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from typing import Any

from pydantic import BaseModel

from toolwire import RunContextWrapper, Server, ToolContext, ToolOutputImage

# A 1x1 transparent PNG.
PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

server = Server("kitchen", version="1.2.3", instructions="Tools for interop tests.")

# How often each cancellable tool saw its cancellation (read back through `stats`).
_cancelled: dict[str, int] = {"nap": 0}


class Profile(BaseModel):
    """A person."""

    name: str
    age: int
    tags: list[str]


@server.tool(annotations={"readOnlyHint": True, "idempotentHint": True})
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return a + b


@server.tool
def echo(text: str) -> str:
    """Echo the text back.

    Args:
        text: What to echo.
    """
    print(f"echo called with {text!r}")  # a print inside a tool goes to stderr
    os.write(1, b"os.write(1) inside a tool\n")  # so does a raw write to fd 1
    return text


@server.tool(title="Make a profile", annotations={"readOnlyHint": True})
def profile(name: str, age: int = 30, tags: list[str] | None = None) -> Profile:
    """Build a profile (structured output).

    Args:
        name: The person's name.
        age: Their age.
        tags: Labels.
    """
    return Profile(name=name, age=age, tags=tags or [])


@server.tool
def pixel() -> ToolOutputImage:
    """A 1x1 PNG."""
    return ToolOutputImage(
        image_url="data:image/png;base64," + base64.b64encode(PIXEL_PNG).decode()
    )


@server.tool
def boom(reason: str) -> str:
    """Always fails (default failure text).

    Args:
        reason: Why.
    """
    raise ValueError(f"secret detail: {reason}")


def _tell(ctx: RunContextWrapper[Any], error: Exception) -> str:
    return f"boom_loud failed: {error}"


@server.tool(failure_error_function=_tell)
def boom_loud(reason: str) -> str:
    """Always fails, with a custom failure text.

    Args:
        reason: Why.
    """
    raise RuntimeError(reason)


@server.tool(timeout=30)
async def progress(ctx: ToolContext[None], steps: int = 3) -> str:
    """Report progress at every step.

    Args:
        steps: How many steps (1-20).
    """
    steps = max(1, min(steps, 20))
    for done in range(1, steps + 1):
        await asyncio.sleep(0.01)
        await ctx.report_progress(done, steps, f"step {done}/{steps}")
    return f"done {steps}"


@server.tool
async def nap(seconds: float) -> str:
    """Sleep (async), counting cancellations.

    Args:
        seconds: How long.
    """
    try:
        await asyncio.sleep(min(seconds, 60))
    except asyncio.CancelledError:
        _cancelled["nap"] += 1
        raise
    return f"slept {seconds}"


@server.tool
def block(seconds: float) -> str:
    """Sleep in a worker thread (sync tool).

    Args:
        seconds: How long.
    """
    time.sleep(min(seconds, 60))
    return f"blocked {seconds}"


@server.tool
def stats() -> dict[str, int]:
    """Counters the tests read back."""
    return dict(_cancelled)


@server.tool(annotations={"destructiveHint": True, "readOnlyHint": False})
def wipe(target: str) -> str:
    """Delete everything under a target (pretend).

    Args:
        target: What to wipe.
    """
    return f"wiped {target}"


if __name__ == "__main__":
    server.run()
