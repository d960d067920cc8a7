"""A DELETE ends a shared session on whichever process it reaches, even one at its session cap:
ending a session needs its record, not a live copy of it."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
from tests._jsonrpc import ACCEPT_HEADERS as ACCEPT
from tests._jsonrpc import initialize_request
from tests.redis._server import RedisServer
from tests.transports.http._http_harness import serving

from toolwire import Server
from toolwire.redis import RedisBackplane


def _app(url: str, *, max_sessions: int = 10_000) -> Any:
    server = Server("deleting")

    @server.tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    return server.http_app(
        backplane=RedisBackplane(url), resumable=False, max_sessions=max_sessions
    )


def _start(base: str) -> str:
    made = httpx.post(f"{base}/mcp", json=initialize_request(), headers=ACCEPT, timeout=30)
    assert made.status_code == 200, made.text
    return str(made.headers["mcp-session-id"])


def _ping(base: str, session_id: str) -> httpx.Response:
    message = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
    headers = {**ACCEPT, "mcp-session-id": session_id}
    return httpx.post(f"{base}/mcp", json=message, headers=headers, timeout=30)


def test_a_full_process_ends_a_session_another_process_holds(redis_server: RedisServer) -> None:
    url = redis_server.url
    with serving(_app(url)) as one, serving(_app(url, max_sessions=1)) as full:
        elsewhere = _start(one)
        _start(full)  # the full process's one slot is taken by a session of its own
        assert _ping(full, elsewhere).status_code == 503  # serving it would need a copy here

        headers = {**ACCEPT, "mcp-session-id": elsewhere}
        ended = httpx.delete(f"{full}/mcp", headers=headers, timeout=30)
        assert ended.status_code == 200, ended.text

        assert _ping(full, elsewhere).status_code == 404
        again = httpx.delete(f"{full}/mcp", headers=headers, timeout=30)
        assert again.status_code == 404
        # The process that held it hears of the end on the backplane and drops its copy.
        for _ in range(500):
            if _ping(one, elsewhere).status_code == 404:
                break
        else:
            raise AssertionError("the holding process still serves the deleted session")


def test_a_delete_of_an_unknown_id_ends_nothing(redis_server: RedisServer) -> None:
    url = redis_server.url
    with serving(_app(url)) as one, serving(_app(url)) as two:
        session_id = _start(one)
        forged = {
            **ACCEPT,
            "mcp-session-id": session_id[:-1] + ("0" if session_id[-1] != "0" else "1"),
        }
        assert httpx.delete(f"{two}/mcp", headers=forged, timeout=30).status_code == 404
        assert _ping(two, session_id).status_code == 200
