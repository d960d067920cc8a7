"""A server whose tools are not strict as served: one a client can make strict, one it cannot."""

from __future__ import annotations

from typing import Any

from toolwire import Server

server = Server("loose")


@server.tool(strict_mode=False, annotations={"readOnlyHint": True})
def search(query: str, limit: int | None = None) -> list[str]:
    """Search (optional arguments: not strict as served, strict once converted).

    Args:
        query: What to look for.
        limit: At most this many.
    """
    return [query][: limit or 1]


@server.tool(strict_mode=False, annotations={"readOnlyHint": True})
def store(payload: dict[str, Any]) -> str:
    """Store any object (open keys: no conversion makes that strict).

    Args:
        payload: Anything.
    """
    return str(sorted(payload))


if __name__ == "__main__":
    server.run()
