"""New `Mcp-Session-Id` values, optionally tagged with the route of the process that made them.

Several toolwire processes behind one balancer, each keeping its own sessions in memory,
need every request of a session to reach the process that opened it. A balancer can only
route on what it sees, and the `initialize` that opens a session carries no id yet: hashing
the id sends about half the sessions to a process that never heard of them. So a process
started with `TOOLWIRE_SESSION_ROUTE=NAME` issues ids of the form `NAME.<32 hex digits>`,
and the balancer maps the part before the dot to that process (nginx: a `map` on
`$http_mcp_session_id`, see the README). Without the variable, ids are the bare 32 digits.

A route is 1 to 32 letters, digits, `-` or `_`: it goes into a header and into balancer
configuration, so anything else is refused when the app starts, naming the variable. A
request naming an id of any other form is for no session of the deployment: it is told so
(404) without a look in the session store, and the value goes nowhere (logs, errors, Redis).
"""

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
