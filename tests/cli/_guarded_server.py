"""A server whose HTTP endpoint wants `Authorization: Bearer sesame` (for `--header`)."""

from __future__ import annotations

from toolwire import BearerAuth, Identity, Server


async def _verify(token: str) -> Identity | None:
    return Identity(subject="cli") if token == "sesame" else None


server = Server("guarded", auth=BearerAuth(_verify))


@server.tool(annotations={"readOnlyHint": True})
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    server.run()
