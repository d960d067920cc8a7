"""The requests an era serves, as tables, and the capabilities that follow from them.

A session looks a request's method up in its era's table (`session.py` holds the two tables;
the handlers live by concern in `connection_routes.py`, `session_calls.py` and `resources.py`,
which exports its entries for each era); a method missing from the table is -32601. Serving a new
method is one entry, and what it adds to the advertised capabilities travels with it, so a
server never claims a capability whose method it does not serve, nor the reverse.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Route", "capabilities"]


@dataclass(frozen=True, slots=True)
class Route:
    """How one method is served in one era.

    Args:
        handler: `handler(session, request_id, params, version, log_level)`; answers the
            request (or starts the work that will).
        grants: What serving the method adds to the capabilities (merged one level deep).
        before_handshake: Whether a handshake-era client may send it before `initialize`.
    """

    handler: Callable[..., Awaitable[None]]
    grants: Mapping[str, Mapping[str, Any]] | None = None
    before_handshake: bool = False


def capabilities(table: Mapping[str, Route]) -> dict[str, Any]:
    """The capabilities a server serving `table` advertises (a new dict on each call)."""
    merged: dict[str, dict[str, Any]] = {}
    for route in table.values():
        for name, settings in (route.grants or {}).items():
            merged.setdefault(name, {}).update(settings)
    return merged
