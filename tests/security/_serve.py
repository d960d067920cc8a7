"""Serve an ASGI app with uvicorn on 127.0.0.1 (a free port) for raw HTTP requests."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from tests.transports.http._http_harness import serving


def served(app: Any, *, lifespan: str = "off") -> contextlib.AbstractContextManager[str]:
    """The base URL of `app` served by uvicorn in a thread, until the block ends (no lifespan
    unless asked: the apps here are bare ASGI callables)."""
    return serving(app, lifespan=lifespan)


async def echo_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers with what reached it: the path, the identity's repr, the body."""
    assert scope["type"] == "http"
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    identity = scope.get("toolwire.identity")
    payload = json.dumps(
        {
            "path": scope["path"],
            "identity": None if identity is None else repr(identity),
            "body": body.decode(),
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": payload})
