"""A toolwire server whose tools answer with `ToolResult`: content for the model, structured
content apart (`python results.py`, stdio)."""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic import BaseModel

# The checkout's toolwire, whatever environment a client starts this with.
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "src"))

from toolwire import Server, ToolOutputImage, ToolOutputText, ToolResult

server = Server("results")
PIXEL = "data:image/png;base64,iVBORw0KGgo="


class Point(BaseModel):
    x: int
    y: int = 0


@server.tool
def locate(x: int) -> ToolResult[Point]:
    """A point, described in words."""
    return ToolResult(Point(x=x), content=f"the point sits at x={x}")


@server.tool
def pictured(x: int) -> ToolResult[Point]:
    """A point shown as text and a picture."""
    return ToolResult(
        Point(x=x), content=[ToolOutputText(text=f"x={x}"), ToolOutputImage(image_url=PIXEL)]
    )


@server.tool
def mirrored(x: int) -> ToolResult[Point]:
    """A point with no content of its own: its JSON is the text."""
    return ToolResult(Point(x=x))


@server.tool
def count(n: int) -> ToolResult[int]:
    """A wrapped number."""
    return ToolResult(n, content=f"{n} items")


if __name__ == "__main__":
    server.run()
