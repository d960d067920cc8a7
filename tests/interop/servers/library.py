"""A toolwire server publishing resources (for the resource interop tests).

Fixed text and binary resources, a template with an `int` parameter, a resource that changes
(`touch` tells its followers), a tool that publishes a new resource while serving, and the
`library_docs/` directory next to this file under `file:///docs/`.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from toolwire import Server

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

server = Server("library", version="0.3.0", instructions="Resources for interop tests.")
revision = {"watched": 0}


@server.resource(
    "test://static-text",
    name="static-text",
    title="Static text",
    description="A static text resource for testing",
    mime_type="text/plain",
)
def static_text() -> str:
    return "This is the content of the static text resource."


@server.resource("test://static-binary", name="static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource (a 1x1 PNG)."""
    return PNG


@server.resource("test://template/{id}/data", name="template", mime_type="application/json")
def template(id: int) -> str:
    """A resource template with parameter substitution."""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.resource("test://watched-resource", name="watched-resource", mime_type="text/plain")
def watched() -> str:
    """A subscribable resource; `touch` changes it."""
    return f"revision {revision['watched']}"


@server.tool
async def touch(uri: str = "test://watched-resource") -> str:
    """Change a resource and tell its followers.

    Args:
        uri: The resource that changed.
    """
    revision["watched"] += 1
    server.notify_resource_updated(uri)
    return f"touched {uri}"


@server.tool
async def publish(uri: str, text: str) -> str:
    """Publish a new text resource while serving.

    Args:
        uri: Its URI.
        text: Its contents.
    """
    server.add_resource(uri, text, mime_type="text/plain")
    return f"published {uri}"


server.add_directory_resources(
    Path(__file__).resolve().parent / "library_docs", "file:///docs/", name="docs"
)


if __name__ == "__main__":
    server.run()
