"""`Mcp-Session-Id` values: 32 random hex digits, prefixed `NAME.` under
`TOOLWIRE_SESSION_ROUTE=NAME` so a balancer can route a session to its process (see
docs/deployment.md); `could_be_session_id` tells an id of this shape from any other."""

from __future__ import annotations

import os
import re
import secrets

__all__ = ["ROUTE_VARIABLE", "could_be_session_id", "new_session_id", "session_id_prefix"]

ROUTE_VARIABLE = "TOOLWIRE_SESSION_ROUTE"
_ROUTE = re.compile(r"[A-Za-z0-9_-]{1,32}")
_SESSION_ID = re.compile(rb"(?:[A-Za-z0-9_-]{1,32}\.)?[0-9a-f]{32}")


def session_id_prefix() -> str:
    """What this process puts before each new session's random part ("" without a route).

    Raises:
        ValueError: The variable is set to something that is not a valid route.
    """
    route = os.environ.get(ROUTE_VARIABLE, "")
    if not route:
        return ""
    if not _ROUTE.fullmatch(route):
        raise ValueError(
            f"{ROUTE_VARIABLE}={route!r} is not a valid session route: use 1 to 32 letters, "
            "digits, '-' or '_'"
        )
    return f"{route}."


def new_session_id(prefix: str) -> str:
    """A fresh, unguessable session id after `prefix`."""
    return prefix + secrets.token_hex(16)


def could_be_session_id(raw: bytes) -> bool:
    """Whether an `Mcp-Session-Id` value has the form of the ids any process issues."""
    return _SESSION_ID.fullmatch(raw) is not None
