"""The session pool and the hosting type under it, driven with a real `Server`'s opener: what a
lent session brings to its next request, what may not be lent again, where opening errors
go, and that a request's context variables never reach a hosted session."""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from toolwire import Server
from toolwire.transports.http.streamable._hosting import SessionPool

pytestmark = pytest.mark.anyio

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
FROM_THE_REQUEST: contextvars.ContextVar[str] = contextvars.ContextVar(
    "from_the_request", default="unset"
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _server() -> Server:
    server = Server("hosting")

    @server.tool
    async def seen() -> str:
        """What the request-scoped variable holds where the call runs."""
        return FROM_THE_REQUEST.get()

    return server


async def _call(lease: Any, frames: list[bytes], request_id: int) -> Any:
    async def collect(frame: bytes, _kind: Any, _id: Any) -> None:
        frames.append(frame)

    lease.target = collect
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
    message["params"] = {"name": "seen", "arguments": {}, "_meta": ENVELOPE}
    with anyio.fail_after(10):
        await lease.session.receive(json.dumps(message).encode())
        while not frames:
            await asyncio.sleep(0.01)
    return json.loads(frames[-1])


async def test_a_session_comes_back_as_it_was_born() -> None:
    async with _server().serving() as opener:
        pool = SessionPool(opener)
        lease = await pool.take(None, era="handshake", version="2025-06-18")
        session = lease.session
        assert (session.era, session.protocol_version) == ("handshake", "2025-06-18")
        session.log_level = "error"  # as `logging/setLevel` and `resources/subscribe` leave it
        session.resource_subscriptions.add("file:///x")
        session.client_info = {"name": "someone"}
        lease.reusable = True
        pool.give_back(lease)
        again = await pool.take(None, era="modern")
        assert again is lease  # the same session, lent again ...
        assert (session.era, session.protocol_version) == ("modern", None)
        assert session.log_level == "debug"  # ... with nothing of the last request
        assert session.resource_subscriptions == set()
        assert session.client_info is None
        again.reusable = True
        pool.give_back(again)
        await pool.close()
        assert pool.idle == 0


async def test_what_is_never_lent_again() -> None:
    async with _server().serving() as opener:
        pool = SessionPool(opener)
        unclean = await pool.take(None, era="modern")
        pool.give_back(unclean)  # its request did not say it ended cleanly
        listening = await pool.take(None, era="modern")
        listening.reusable = listening.listening = True
        pool.give_back(listening)
        caller = object()
        theirs = await pool.take(caller, era="modern")
        assert theirs.session.identity is caller
        theirs.reusable = True
        pool.give_back(theirs)
        assert pool.idle == 0
        for lease in (unclean, listening, theirs):
            task = lease.hosted.task
            assert task is not None
            with anyio.fail_after(10):
                await task  # closed, not kept
        assert (await pool.take(None, era="modern")) not in (unclean, listening, theirs)
        await pool.close()


async def test_a_session_that_ends_while_idle_is_not_lent() -> None:
    async with _server().serving() as opener:
        pool = SessionPool(opener)
        lease = await pool.take(None, era="modern")
        lease.reusable = True
        pool.give_back(lease)
        assert pool.idle == 1
        lease.session.close()  # it ends under the pool, as a failing session would
        task = lease.hosted.task
        assert task is not None
        with anyio.fail_after(10):
            await task
        assert pool.idle == 0
        fresh = await pool.take(None, era="modern")
        assert fresh is not lease
        await pool.close()


async def test_an_opening_error_reaches_the_asker() -> None:
    async with _server().serving() as opener:

        @asynccontextmanager
        async def refusing(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            raise RuntimeError("this opener opens nothing")
            yield  # pragma: no cover

        pool = SessionPool(refusing)  # type: ignore[arg-type]
        with pytest.raises(RuntimeError, match="opens nothing"):
            await pool.take(None, era="modern")
        assert pool.listening() == []
        await pool.close()
        assert opener is not None


async def test_a_requests_context_variables_never_reach_a_hosted_session() -> None:
    seen: list[str] = []
    async with _server().serving() as opener:

        @asynccontextmanager
        async def recording(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            seen.append(FROM_THE_REQUEST.get())  # where the session opens, and lives
            async with opener(*args, **kwargs) as session:
                yield session

        pool = SessionPool(recording)  # type: ignore[arg-type]
        FROM_THE_REQUEST.set("the first request's")  # as a middleware would, per request
        lease = await pool.take(None, era="modern")
        frames: list[bytes] = []
        reply = await _call(lease, frames, 1)
        # The call runs for the request that sent it, in that request's context ...
        assert reply["result"]["content"] == [{"type": "text", "text": "the first request's"}]
        lease.reusable = True
        pool.give_back(lease)
        await pool.close()
    assert seen == ["unset"]  # ... but the session it borrowed was opened in none


@pytest.mark.parametrize("json_response", [True, False])
async def test_a_modern_request_whose_session_closes_under_it_is_answered(
    json_response: bool,
) -> None:
    # The pool closes every lent session when its app stops; the request waiting on one must
    # end then, not wait for a client that stays connected.
    from toolwire.transports.http.streamable.modern import serve_modern

    started = asyncio.Event()
    server = Server("closing")

    @server.tool
    async def hold() -> str:
        """Run until cancelled."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()  # the client stays connected and sends nothing more
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    params = {"name": "hold", "arguments": {}, "_meta": ENVELOPE}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "hold",
    }
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(name.encode(), value.encode()) for name, value in headers.items()],
    }
    async with server.serving() as opener:
        pool = SessionPool(opener)
        serving = asyncio.create_task(
            serve_modern(
                scope,
                receive,
                send,
                body=json.dumps(message).encode(),
                message=message,
                pool=pool,
                json_response=json_response,
                keepalive_seconds=None,
            )
        )
        with anyio.fail_after(10):
            await started.wait()
        await pool.close()  # as the app's hosting does when it stops
        with anyio.fail_after(10):
            await serving
    # Nothing had gone out (no notification upgraded the answer to a stream): a bare 503.
    assert sent[0]["type"] == "http.response.start"
    assert sent[0]["status"] == 503
