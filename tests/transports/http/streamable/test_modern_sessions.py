"""The sessions behind 2026-07-28 requests: reused from one clean request to the next, never
after a request that ended badly, a listen stream, or an authenticated caller."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from tests.transports.http._modern_support import (
    Served,
    abandon_a_nap,
    body,
    build_server,
    enveloped,
    headers_for,
    modern_only_app,
)

from toolwire import Server


@pytest.fixture
def served() -> Iterator[tuple[Served, Server, dict[str, int]]]:
    server, counts = build_server()
    with Served(modern_only_app(server)) as running:
        yield running, server, counts


def open_sessions(server: Server) -> int:
    return len(server._sessions)


def post(url: str, method: str, params: dict[str, Any], **extra: str) -> httpx.Response:
    headers = headers_for(method, params, **extra)
    return httpx.post(url, headers=headers, content=body(method, params), timeout=20)


def settle(server: Server, expected: int) -> int:
    for _ in range(200):  # sessions close in their own tasks: give them a moment
        if open_sessions(server) == expected:
            break
        time.sleep(0.02)
    return open_sessions(server)


def test_sequential_requests_share_one_session(
    served: tuple[Served, Server, dict[str, int]],
) -> None:
    running, server, _ = served
    for number in range(30):
        reply = post(
            running.url, "tools/call", enveloped(name="add", arguments={"a": number, "b": 1})
        )
        assert reply.json()["result"]["structuredContent"] == {"result": number + 1}
        post(running.url, "tools/list", enveloped())
        post(
            running.url, "tools/call", enveloped(name="nope", arguments={})
        )  # refused by the session
    assert open_sessions(server) == 1


def test_one_request_leaves_nothing_to_the_next(
    served: tuple[Served, Server, dict[str, int]],
) -> None:
    running, _, _ = served
    loud = enveloped(
        name="chatty", arguments={}, _meta={"io.modelcontextprotocol/logLevel": "debug"}
    )
    assert post(running.url, "tools/call", loud).headers["content-type"] == "text/event-stream"
    quiet = post(running.url, "tools/call", enveloped(name="chatty", arguments={}))
    assert (
        quiet.headers["content-type"] == "application/json"
    )  # no log without the envelope's level
    progress = enveloped(name="progress", arguments={"steps": 1}, _meta={"progressToken": "t"})
    assert post(running.url, "tools/call", progress).headers["content-type"] == "text/event-stream"
    plain = post(running.url, "tools/call", enveloped(name="progress", arguments={"steps": 1}))
    assert plain.headers["content-type"] == "application/json"


def test_a_request_its_client_left_closes_its_session(
    served: tuple[Served, Server, dict[str, int]],
) -> None:
    running, server, counts = served
    post(running.url, "tools/list", enveloped())
    assert open_sessions(server) == 1
    abandon_a_nap(running.url, counts)
    assert counts["cancelled"] == 1
    assert settle(server, 0) == 0  # the idle one was taken for the nap; it was not given back
    post(running.url, "tools/list", enveloped())
    assert settle(server, 1) == 1


def test_a_listen_session_is_not_reused(served: tuple[Served, Server, dict[str, int]]) -> None:
    running, server, _ = served
    listen = enveloped(notifications={"toolsListChanged": True})
    acknowledged = threading.Event()

    def read() -> None:
        with httpx.stream(
            "POST",
            running.url,
            headers=headers_for("subscriptions/listen"),
            content=body("subscriptions/listen", listen),
            timeout=20,
        ) as stream:
            for chunk in stream.iter_text():
                if "acknowledged" in chunk:
                    acknowledged.set()
                    return  # leave: the stream's session must close

    reader = threading.Thread(target=read)
    reader.start()
    assert acknowledged.wait(10)
    reader.join(10)
    assert settle(server, 0) == 0


def _caller() -> Any:
    try:
        from toolwire.protocol.auth.identity import Identity  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # before the authentication work: any value marks a caller
        return object()
    return Identity("ada")


def test_an_authenticated_caller_gets_a_session_of_its_own() -> None:
    server, _ = build_server()
    inner = modern_only_app(server)

    async def with_identity(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            scope["toolwire.identity"] = _caller()  # as the auth middleware does
        await inner(scope, receive, send)

    with Served(with_identity) as running:
        for _ in range(3):
            reply = post(
                running.url, "tools/call", enveloped(name="add", arguments={"a": 1, "b": 1})
            )
            assert reply.json()["result"]["structuredContent"] == {"result": 2}
        assert settle(server, 0) == 0  # each request's session closed with it


def test_a_stopping_server_closes_the_idle_sessions(
    served: tuple[Served, Server, dict[str, int]],
) -> None:
    import asyncio

    running, server, _ = served
    post(running.url, "tools/list", enveloped())
    assert open_sessions(server) == 1
    assert running.loop is not None
    asyncio.run_coroutine_threadsafe(running.app.end_streams(), running.loop).result(10)
    assert settle(server, 0) == 0
    assert post(running.url, "tools/list", enveloped()).status_code == 200  # opens anew if asked
