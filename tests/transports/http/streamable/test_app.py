"""`Server.http_app` refuses an out-of-range option up front, in a message naming it."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import Server

REFUSED = [
    ({"session_idle_timeout": 0}, "session_idle_timeout must be a number of seconds > 0 or None"),
    ({"max_sessions": 0}, "max_sessions must be an integer >= 1, not 0"),
    ({"max_sessions": True}, "max_sessions must be an integer >= 1, not True"),
    ({"max_body_bytes": 1.5}, "max_body_bytes must be an integer >= 1, not 1.5"),
    ({"retry_ms": -1}, "retry_ms must be an integer >= 0 or None, not -1"),
    ({"retry_ms": "1"}, "retry_ms must be an integer >= 0 or None, not '1'"),
    ({"keepalive_seconds": -2}, "keepalive_seconds must be a number of seconds > 0 or None"),
    ({"path": "mcp"}, "path must start with '/', not 'mcp'"),
]


@pytest.mark.parametrize(("options", "message"), REFUSED)
def test_a_bad_option_is_refused_by_name(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        Server("options").http_app(**options)
    assert str(raised.value).startswith(message)


def test_none_is_accepted_where_the_option_allows_it() -> None:
    app = Server("options").http_app(
        retry_ms=None, keepalive_seconds=None, session_idle_timeout=None
    )
    assert app.endpoint.config.retry_ms is None
    assert app.endpoint.config.keepalive_seconds is None
