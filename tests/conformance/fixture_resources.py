"""The fixture resources and template the conformance harness's server scenarios read.

Names and contents follow the scenario sources of `@modelcontextprotocol/conformance` 0.1.16
and 0.2.0-alpha.12 (resources-*, sep-2164-resource-not-found, caching), built with
toolwire's public API only: `@server.resource` for fixed URIs and a URI template, with a
completer for the template's variable.
"""

from __future__ import annotations

import base64
import json

from toolwire import Server

from .handshake_tools import PNG_BASE64


def add_resources(server: Server) -> None:
    """Publish every resource the harness's scenarios list, read or subscribe to."""

    @server.resource(
        "test://static-text",
        name="static-text",
        description="A static text resource for testing",
        mime_type="text/plain",
    )
    def static_text() -> str:
        return "This is the content of the static text resource."

    @server.resource(
        "test://static-binary",
        name="static-binary",
        description="A static binary resource (image) for testing",
        mime_type="image/png",
    )
    def static_binary() -> bytes:
        return base64.b64decode(PNG_BASE64)

    @server.resource(
        "test://template/{id}/data",
        name="template",
        description="A resource template with parameter substitution",
        mime_type="application/json",
        completers={
            "id": lambda value, _context: [n for n in ("1", "12", "123") if n.startswith(value)]
        },
    )
    def template_data(id: str) -> str:
        return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})

    @server.resource(
        "test://watched-resource",
        name="watched-resource",
        description="A subscribable resource",
        mime_type="text/plain",
    )
    def watched() -> str:
        return "Watched resource content"
