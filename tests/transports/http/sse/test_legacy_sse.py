"""The legacy HTTP+SSE transport on the wire: a real uvicorn server, a real HTTP client.

Each test opens `GET /sse`, reads the `endpoint` event, POSTs JSON-RPC messages to it and
reads the replies as `message` events; the refusals are checked by status and body.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from tests.transports._uvicorn_thread import Event, events, served

from toolwire import Server, ToolContext

pytestmark = pytest.mark.anyio

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Probe:
    """What the tools saw, readable from the test's thread."""

    def __init__(self) -> None:
        self.nap_started = threading.Event()
        self.nap_cancelled = threading.Event()


def _server(probe: Probe) -> Server:
    server = Server("sse-probe", version="0.1")

    @server.tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    @server.tool
    async def nap(seconds: float) -> str:
        """Sleep, noting a cancellation."""
        probe.nap_started.set()
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            probe.nap_cancelled.set()
            raise
        return "rested"

    @server.tool
    async def steps(ctx: ToolContext[None], count: int) -> str:
        """Report progress."""
        for done in range(1, count + 1):
            await ctx.report_progress(done, count)
        return f"{count} steps"

    return server


class Stream:
    """One open `GET /sse` and the session behind it."""

    def __init__(self, client: Any, lines: AsyncIterator[str], base: str) -> None:
        self.client = client
        self.events = events(lines)
        self.base = base
        self.endpoint = ""

    async def next(self, *, comments: bool = False) -> Event:
        with anyio.fail_after(10):
            while True:
                event = await anext(self.events)
                if comments or event.kind != ":":
                    return event

    async def post(self, message: Any, **kwargs: Any) -> Any:
        return await self.client.post(self.base + self.endpoint, json=message, **kwargs)

    async def reply(self, request_id: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The reply to `request_id`, and the messages seen before it."""
        before: list[dict[str, Any]] = []
        for _ in range(100):
            event = await self.next()
            assert event.kind == "message", event
            message = event.json()
            if message.get("id") == request_id and "method" not in message:
                return message, before
            before.append(message)
        raise AssertionError(f"no reply to {request_id!r} in 100 events")

    async def initialize(self) -> dict[str, Any]:
        assert (await self.post(INIT)).status_code == 202
        reply, _ = await self.reply(1)
        assert (await self.post(INITIALIZED)).status_code == 202
        return reply


@asynccontextmanager
async def opened(base: str, path: str = "/sse") -> AsyncIterator[Stream]:
    import httpx2

    async with (
        httpx2.AsyncClient(timeout=10) as client,
        client.stream("GET", base + path) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = Stream(client, response.aiter_lines(), base)
        first = await stream.next()
        assert first.kind == "endpoint"
        stream.endpoint = first.data
        yield stream


async def _until(check: Callable[[], bool], what: str) -> None:
    with anyio.fail_after(10):
        while not check():
            await anyio.sleep(0.01)
    assert check(), what


async def test_endpoint_event_then_replies_progress_and_results_on_the_stream() -> None:
    app = _server(Probe()).sse_app()
    with served(app) as base:
        async with opened(base) as stream:
            assert re.fullmatch(r"/messages/\?session_id=[0-9a-f]{32}", stream.endpoint)
            reply = await stream.initialize()
            assert reply["result"]["protocolVersion"] == "2025-06-18"
            assert reply["result"]["serverInfo"] == {"name": "sse-probe", "version": "0.1"}

            accepted = await stream.post(
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "add", "arguments": {"a": 2, "b": 40}}}
            )  # fmt: skip
            assert (accepted.status_code, accepted.text) == (202, "Accepted")
            reply, _ = await stream.reply(2)
            assert reply["result"]["structuredContent"] == {"result": 42}

            await stream.post(
                {"jsonrpc": "2.0", "id": "p", "method": "tools/call",
                 "params": {"name": "steps", "arguments": {"count": 3},
                            "_meta": {"progressToken": "tok"}}}
            )  # fmt: skip
            reply, before = await stream.reply("p")
            assert reply["result"]["content"] == [{"type": "text", "text": "3 steps"}]
            progress = [m["params"]["progress"] for m in before if "progressToken" in m["params"]]
            assert progress == [1, 2, 3]
            # What the session itself refuses is answered on the stream, like over stdio.
            await stream.post({"jsonrpc": "2.0", "id": 9, "method": "nope"})
            reply, _ = await stream.reply(9)
            assert reply["error"]["code"] == -32601


async def test_closing_the_stream_ends_the_session_and_cancels_its_calls() -> None:
    import httpx2

    probe = Probe()
    app = _server(probe).sse_app()
    transport = app.transport
    with served(app) as base:
        async with httpx2.AsyncClient(timeout=10) as client:
            async with client.stream("GET", base + "/sse") as response:
                stream = Stream(client, response.aiter_lines(), base)
                stream.endpoint = (await stream.next()).data
                await stream.initialize()
                call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "nap", "arguments": {"seconds": 60}}}  # fmt: skip
                assert (await stream.post(call)).status_code == 202
                assert await anyio.to_thread.run_sync(probe.nap_started.wait, 10)
                assert transport.open_sessions == 1
            # The stream is closed (the client is gone): its call is cancelled, its session
            # ends, and its id is not accepted any more.
            assert await anyio.to_thread.run_sync(probe.nap_cancelled.wait, 10)
            await _until(lambda: transport.open_sessions == 0, "the session is gone")
            late = await stream.post({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        assert late.status_code == 404
        assert late.json()["error"]["message"].startswith("Unknown session_id: the session ended")


async def _refusal(
    base: str, send: Callable[[Any, str], Awaitable[Any]]
) -> tuple[int, dict[str, Any], Any]:
    async with opened(base) as stream:
        response = await send(stream.client, base + stream.endpoint)
        return response.status_code, response.json(), response


@pytest.mark.parametrize(
    ("case", "status", "needle"),
    [
        ("no session_id", 400, "Missing session_id query parameter"),
        ("malformed session_id", 400, "Malformed session_id 'xyz'"),
        # The SDK's transport reads the last copy, toolwire read the first: a proxy may route
        # by either, so two copies name no session.
        ("two session_ids", 400, "The URL has 2 session_id parameters; send one"),
        ("unknown session_id", 404, "Unknown session_id"),
        ("text/plain", 415, "Content-Type must be application/json"),
        ("no content-type", 415, "Content-Type must be application/json"),
        ("bad JSON", 400, "Parse error: the body is not JSON"),
        ("too large", 413, "Request body exceeds the limit of 1000 bytes"),
        ("GET on the message path", 405, "Method GET not allowed"),
    ],
)
async def test_bad_posts_get_a_clear_4xx(case: str, status: int, needle: str) -> None:
    server = _server(Probe())
    server.max_message_bytes = 1000
    json_type = {"content-type": "application/json"}

    async def send(client: Any, url: str) -> Any:
        path = url.split("?", maxsplit=1)[0]
        if case == "no session_id":
            return await client.post(path, json={})
        if case == "malformed session_id":
            return await client.post(path + "?session_id=xyz", json={})
        if case == "two session_ids":
            return await client.post(url + "&session_id=" + "ab" * 16, json={})
        if case == "unknown session_id":
            return await client.post(path + "?session_id=" + "ab" * 16, json={})
        if case == "text/plain":
            return await client.post(url, content=b"{}", headers={"content-type": "text/plain"})
        if case == "no content-type":
            return await client.post(url, content=b"{}")
        if case == "bad JSON":
            return await client.post(url, content=b'{"jsonrpc": ', headers=json_type)
        if case == "too large":
            return await client.post(url, content=b" " * 5000, headers=json_type)
        return await client.get(url)

    with served(server.sse_app()) as base:
        code, body, response = await _refusal(base, send)
    assert code == status, body
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    assert needle in body["error"]["message"], body
    if status == 405:
        assert response.headers["allow"] == "POST"
    if case == "bad JSON":
        assert body["error"]["code"] == -32700


async def test_a_post_whose_body_never_completes_gets_408(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    from toolwire.transports.http import asgi

    monkeypatch.setattr(asgi, "BODY_SECONDS", 0.3)

    def stalled_post(base: str, endpoint: str) -> bytes:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(
                f"POST {endpoint} HTTP/1.1\r\nhost: 127.0.0.1\r\n".encode()
                + b"content-type: application/json\r\ncontent-length: 100\r\n\r\n{"
            )
            reply = b""
            while b"}}" not in reply and (chunk := sock.recv(4096)):
                reply += chunk
            return reply

    with served(_server(Probe()).sse_app()) as base:
        async with opened(base) as stream:
            reply = await anyio.to_thread.run_sync(stalled_post, base, stream.endpoint)
            assert (await stream.post(INIT)).status_code == 202  # the session still serves
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 "), reply
    assert b"connection: close" in head.lower()
    assert b"the request body did not arrive within 0.3 seconds" in body


async def test_sessions_are_bounded_and_idle_streams_get_keepalive_comments() -> None:
    app = _server(Probe()).sse_app(max_sessions=2, keepalive_seconds=0.05)
    import httpx2

    with served(app) as base:
        async with opened(base) as first, opened(base):
            comment = await first.next(comments=True)
            assert (comment.kind, comment.data) == (":", "keep-alive")
            async with httpx2.AsyncClient(timeout=10) as client:
                refused = await client.get(base + "/sse")
            assert refused.status_code == 503
            assert "Too many open sessions (max_sessions=2)" in refused.json()["error"]["message"]
        await _until(lambda: app.transport.open_sessions == 0, "both sessions ended")
        async with opened(base) as again:  # room again once streams closed
            assert (await again.initialize())["result"]["serverInfo"]["name"] == "sse-probe"


@pytest.mark.parametrize("parent", ["starlette", "fastapi"])
@pytest.mark.parametrize("parent_lifespan", [True, False])
async def test_mounted_app_names_its_prefix_in_the_endpoint(
    parent: str, parent_lifespan: bool
) -> None:
    inner = _server(Probe()).sse_app()
    # Starlette runs only the outer app's lifespan: the parent runs the inner one's, or the
    # inner app starts serving on its first stream.
    lifespan = inner.lifespan if parent_lifespan else None
    outer: Any
    if parent == "fastapi":
        from fastapi import FastAPI

        outer = FastAPI(lifespan=lifespan)
        outer.mount("/api/v1", inner)
    else:
        from starlette.applications import Starlette
        from starlette.routing import Mount

        outer = Starlette(routes=[Mount("/api/v1", app=inner)], lifespan=lifespan)
    with served(outer) as base:
        async with opened(base, "/api/v1/sse") as stream:
            assert stream.endpoint.startswith("/api/v1/messages/?session_id=")
            reply = await stream.initialize()
            assert reply["result"]["serverInfo"]["name"] == "sse-probe"


async def test_a_session_belongs_to_the_caller_that_opened_it() -> None:
    import httpx2

    from toolwire import CallInfo, Identity

    tokens = {
        "ada-1": Identity("ada", client_id="app", scopes="files:read"),
        "ada-2": Identity("ada", client_id="app", scopes="files:read files:write"),
        "mallory": Identity("mallory", client_id="app", scopes="files:read files:write"),
    }

    async def verify(token: str) -> Identity | None:
        return tokens.get(token)

    def who(info: CallInfo) -> str:
        assert info.identity is not None
        return f"{info.identity.subject} {sorted(info.identity.scopes)}"

    server = Server("guarded", auth=verify, context_factory=who)

    @server.tool(scopes=["files:write"])
    def write(ctx: ToolContext[str], text: str) -> str:
        """Needs files:write."""
        return f"{ctx.context} wrote {text}"

    def bearer(token: str) -> dict[str, str]:
        return {"authorization": f"Bearer {token}"}

    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "write", "arguments": {"text": "x"}}}  # fmt: skip
    with served(server.sse_app()) as base:
        async with httpx2.AsyncClient(timeout=10) as client:
            assert (await client.get(base + "/sse")).status_code == 401  # no token, no stream
            async with client.stream("GET", base + "/sse", headers=bearer("ada-1")) as response:
                stream = Stream(client, response.aiter_lines(), base)
                stream.endpoint = (await stream.next()).data
                refused = await stream.post(INIT, headers=bearer("mallory"))
                assert refused.status_code == 404  # another caller: as if unknown
                assert "Unknown session_id" in refused.json()["error"]["message"]
                assert (await stream.post(INIT)).status_code == 401
                assert (await stream.post(INIT, headers=bearer("ada-1"))).status_code == 202
                reply, before = await stream.reply(1)
                assert reply["result"]["serverInfo"]["name"] == "guarded"
                assert before == []  # the refused POSTs never reached the session
                await stream.post(INITIALIZED, headers=bearer("ada-1"))
                # ada's first token lacks the tool's scope; her stepped-up token has it,
                # and the session (opened with the first) serves the call with the new one.
                assert (await stream.post(call, headers=bearer("ada-1"))).status_code == 403
                assert (await stream.post(call, headers=bearer("ada-2"))).status_code == 202
                reply, _ = await stream.reply(2)
                text = reply["result"]["content"][0]["text"]
                assert text == "ada ['files:read', 'files:write'] wrote x"


async def test_host_and_origin_are_checked_on_both_endpoints() -> None:

    app = _server(Probe()).sse_app(allowed_hosts=["127.0.0.1"])
    with served(app) as base:
        async with opened(base) as stream:
            url = base + stream.endpoint
            foreign_host = await stream.client.post(
                url, json=INIT, headers={"host": "evil.example"}
            )
            assert foreign_host.status_code == 421
            foreign_origin = await stream.client.post(
                url, json=INIT, headers={"origin": "https://evil.example"}
            )
            assert foreign_origin.status_code == 403
            stream_refused = await stream.client.get(
                base + "/sse", headers={"host": "evil.example"}
            )
            assert stream_refused.status_code == 421
            assert (await stream.initialize())["result"]["serverInfo"]["name"] == "sse-probe"


async def test_tool_list_changes_reach_the_stream() -> None:
    server = _server(Probe())

    @server.tool
    async def grow(name: str) -> str:
        """Publish another tool."""
        server.add_tool(lambda: "new", name=name)
        return f"added {name}"

    with served(server.sse_app()) as base:
        async with opened(base) as stream:
            await stream.initialize()
            await stream.post(
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "grow", "arguments": {"name": "fresh"}}}
            )  # fmt: skip
            reply, before = await stream.reply(2)
            if not any(m.get("method") == "notifications/tools/list_changed" for m in before):
                message = (await stream.next()).json()  # it may follow the reply
                assert message["method"] == "notifications/tools/list_changed"
            assert reply["result"]["content"] == [{"type": "text", "text": "added fresh"}]
            await stream.post({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
            listed, _ = await stream.reply(3)
            assert "fresh" in {tool["name"] for tool in listed["result"]["tools"]}


@pytest.mark.parametrize("keepalive", [0, -1, "15", True, None])
def test_a_keepalive_that_is_not_seconds_is_refused_by_name(keepalive: Any) -> None:
    with pytest.raises(ValueError) as raised:
        _server(Probe()).sse_app(keepalive_seconds=keepalive)
    assert str(raised.value) == (
        f"keepalive_seconds must be a number of seconds > 0, not {keepalive!r}"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"sse_path": 5}, "sse_path must be an absolute path like '/sse', not 5"),
        ({"message_path": None}, "message_path must be an absolute path like '/sse', not None"),
        ({"allowed_hosts": 1}, "allowed_hosts must be a list of strings, not int"),
        ({"allowed_origins": 0.5}, "allowed_origins must be a list of strings, not float"),
        (
            {"sse_path": "/mcp", "message_path": "/mcp/"},
            "sse_path and message_path must differ, not both '/mcp/'",
        ),
    ],
)
def test_a_path_or_host_list_of_the_wrong_kind_is_refused_by_name(
    options: dict[str, Any], message: str
) -> None:
    """Not an AttributeError (`'int' object has no attribute 'startswith'`) or a bare
    "'int' object is not iterable"."""
    with pytest.raises(ValueError) as raised:
        _server(Probe()).sse_app(**options)
    assert str(raised.value) == message
