"""A small demo MCP server built on toolwire's public API only.

Tools: a text tool, a structured-output tool, an image tool, a slow tool that reports
progress, and a destructive tool marked as such. Resources: the notebook's index (a fixed
URI) and each note (a URI template whose title completes). Prompt: a summary request that
embeds a note.
"""

from __future__ import annotations

import asyncio
import base64
import struct
import zlib

from pydantic import BaseModel

from toolwire import EmbeddedResource, PromptMessage, Server, ToolContext, ToolOutputImage

server = Server(
    "toolwire-demo",
    version="0.1.0",
    instructions="A notebook: add, list and delete notes; plus a few demonstration tools.",
)

_notes: dict[str, str] = {"welcome": "toolwire serves plain functions over MCP."}


class WordStats(BaseModel):
    """Counts for a piece of text."""

    characters: int
    words: int
    lines: int


@server.tool(annotations={"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False})
def shout(text: str) -> str:
    """Return the text in upper case.

    Args:
        text: What to shout.
    """
    return text.upper()


@server.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def word_stats(text: str) -> WordStats:
    """Count characters, words and lines of a text.

    Args:
        text: The text to measure.
    """
    return WordStats(characters=len(text), words=len(text.split()), lines=text.count("\n") + 1)


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(row * height)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@server.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def swatch(red: int = 255, green: int = 128, blue: int = 0) -> ToolOutputImage:
    """Draw a 16x16 colour swatch as a PNG image.

    Args:
        red: Red, 0-255.
        green: Green, 0-255.
        blue: Blue, 0-255.
    """

    def clamp(value: int) -> int:
        return max(0, min(255, value))

    png = _png(16, 16, (clamp(red), clamp(green), clamp(blue)))
    data = base64.b64encode(png).decode("ascii")
    return ToolOutputImage(image_url=f"data:image/png;base64,{data}")


@server.tool(timeout=30, annotations={"readOnlyHint": True})
async def countdown(ctx: ToolContext[None], steps: int = 3) -> str:
    """Count down slowly, reporting progress at each step.

    Args:
        steps: How many steps (at most 10).
    """
    steps = max(1, min(steps, 10))
    for done in range(1, steps + 1):
        await asyncio.sleep(0.05)
        await ctx.report_progress(done, steps, f"step {done} of {steps}")
    return f"lift-off after {steps} steps"


@server.tool(annotations={"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False})
def add_note(title: str, text: str) -> str:
    """Add a note, or replace the note with the same title.

    Args:
        title: The note's title.
        text: What the note says.
    """
    replaced = title in _notes
    _notes[title] = text
    return f"{'replaced' if replaced else 'added'} {title!r}"


@server.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def list_notes() -> dict[str, str]:
    """List every note by title."""
    return dict(_notes)


@server.tool(annotations={"destructiveHint": True, "readOnlyHint": False, "idempotentHint": True})
def delete_note(title: str) -> str:
    """Delete a note for good.

    Args:
        title: The note's title.
    """
    if _notes.pop(title, None) is None:
        return f"no note titled {title!r}"
    return f"deleted {title!r}"


def _titles(value: str, _context: dict[str, str]) -> list[str]:
    return [title for title in _notes if title.startswith(value)]


@server.resource("notes://index", name="index", mime_type="text/plain")
def note_index() -> str:
    """The titles of every note, one per line."""
    return "\n".join(sorted(_notes))


@server.resource(
    "notes://{title}",
    name="note",
    description="One note's text.",
    mime_type="text/plain",
    completers={"title": _titles},
)
def note(title: str) -> str:
    """One note's text.

    Args:
        title: The note's title.
    """
    return _notes.get(title, f"(no note titled {title!r})")


@server.prompt(title="Summarise a note", completers={"title": _titles})
def summarise(title: str, style: str = "one sentence") -> list[PromptMessage]:
    """Ask the model to summarise one note.

    Args:
        title: The note's title.
        style: How short the summary should be.
    """
    text = _notes.get(title, "(no such note)")
    return [
        PromptMessage(EmbeddedResource(f"notes://{title}", text=text, mime_type="text/plain")),
        PromptMessage(f"Summarise the note above in {style}."),
    ]
