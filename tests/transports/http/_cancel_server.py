"""A toolwire server app for a real uvicorn process, whose slow tools note their cancellation.

`python -m uvicorn _cancel_server:app` serves `server.http_app()`; `STATELESS=1` and
`JSON_RESPONSE=1` pick those modes. The tool `slow` appends `started TAG` to the file
`MARKERS` when it begins and `cancelled TAG` when it is cut short.
"""

from __future__ import annotations

import os

import anyio

from toolwire import Server


def _mark(text: str) -> None:
    with open(os.environ["MARKERS"], "a") as markers:
        markers.write(text + "\n")


server = Server("cancelling", version="1.0")


@server.tool
def hello(name: str) -> str:
    """Greet someone."""
    return f"hello {name}"


@server.tool
async def slow(tag: str) -> str:
    """Wait for a long time."""
    _mark(f"started {tag}")
    try:
        await anyio.sleep(3600)
    finally:
        _mark(f"cancelled {tag}")  # the only way out of an hour's sleep in a test
    return "done"


app = server.http_app(
    stateless=os.environ.get("STATELESS") == "1",
    json_response=os.environ.get("JSON_RESPONSE") == "1",
)
