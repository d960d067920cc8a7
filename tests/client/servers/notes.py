"""A toolwire server with prompts, resources and a tool that reports progress.

Before serving it writes one line to stderr (a server's start-up chatter), so tests can see
where the adapter sends a child's stderr.
"""

from __future__ import annotations

import sys
from typing import Any

from toolwire import PromptMessage, Server, ToolContext

server = Server("notes")
NOTES = {1: "Buy milk", 2: "Call Ada"}


@server.resource("notes://index", mime_type="text/plain")
def index() -> str:
    """Every note's id and text."""
    return "\n".join(f"{key}: {text}" for key, text in NOTES.items())


@server.resource("notes://{note_id}")
def note(note_id: int) -> str | None:
    """One note by id."""
    return NOTES.get(note_id)


@server.prompt
def summarise(note_id: int, style: str = "short") -> list[PromptMessage]:
    """Summarise a note.

    Args:
        note_id: Which note.
        style: How long the summary may be.
    """
    return [PromptMessage(f"Summarise in a {style} way: {NOTES[note_id]}")]


@server.prompt
def hello() -> str:
    """Say hello."""
    return "Hello!"


@server.tool(annotations={"readOnlyHint": True})
async def count(ctx: ToolContext[Any], steps: int = 3) -> str:
    """Count to `steps`, reporting progress at each step.

    Args:
        steps: How many steps.
    """
    for step in range(steps):
        await ctx.report_progress(step + 1, steps, f"step {step + 1}")
    return "counted"


if __name__ == "__main__":
    print("notes server starting", file=sys.stderr, flush=True)
    server.run()
