"""`Server.http_app` refuses an out-of-range option up front, in a message naming it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
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
    ({"keepalive_seconds": "1"}, "keepalive_seconds must be a number of seconds > 0 or None"),
    ({"keepalive_seconds": True}, "keepalive_seconds must be a number of seconds > 0 or None"),
    ({"session_idle_timeout": [1]}, "session_idle_timeout must be a number of seconds > 0 or"),
    ({"path": "mcp"}, "path must start with '/', not 'mcp'"),
    ({"path": 5}, "path must start with '/', not 5"),
    ({"host": 5}, "host must be a string or None, not int"),
    ({"allowed_hosts": 8000}, "allowed_hosts must be a list of strings, not int"),
    ({"allowed_origins": True}, "allowed_origins must be a list of strings, not bool"),
    ({"backplane": 6379}, "backplane must be a toolwire.redis.RedisBackplane or its URL, not int"),
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


def test_a_request_after_the_lifespan_ended_is_refused_not_served_again() -> None:
    # Once its lifespan has exited the app is stopping: a late request gets a 503 naming that,
    # and the server's lifespan is not entered a second time behind the host's back.
    entered: list[str] = []

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        entered.append("start")
        yield

    server = Server("stopped", lifespan=lifespan)

    async def scenario() -> tuple[int, bytes]:
        app = server.http_app()
        async with app.lifespan():
            pass
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"{}", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "method": "POST",
            "path": "/mcp",
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json")],
        }
        await app(scope, receive, send)
        body = b"".join(message.get("body", b"") for message in sent[1:])
        return sent[0]["status"], body

    status, body = asyncio.run(scenario())
    assert status == 503, body
    assert b"the server is shutting down" in body
    assert entered == ["start"]


@pytest.mark.parametrize("option", ["stateless", "json_response", "resumable"])
@pytest.mark.parametrize("value", ["false", 0, 1, None])
def test_a_switch_that_is_not_true_or_false_is_refused(option: str, value: Any) -> None:
    """`stateless="false"` is truthy: it served stateless, silently."""
    with pytest.raises(TypeError) as raised:
        Server("options").http_app(**{option: value})
    assert str(raised.value) == f"{option} must be True or False, not {value!r}"
