"""Real HTTP servers for the 2026-07-28 tests: uvicorn on 127.0.0.1, an OS-chosen port, in a
thread of the test process (so a test can look at the server's state, and patch it)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Annotated, Any

import httpx2
import pytest
import uvicorn
from pydantic import Field
from tests._jsonrpc import encoded_request as body

from toolwire import Server, ToolContext
from toolwire.protocol.session.serving import Servable
from toolwire.protocol.wire.eras import is_modern_request
from toolwire.transports.http.streamable._hosting import SessionPool
from toolwire.transports.http.streamable.modern import serve_modern

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
MODERN = "2026-07-28"


class ModernOnlyApp:
    """The smallest endpoint around `serve_modern`: handshake-era requests get a 400. Its
    lifespan serves the server and holds the pool its requests borrow sessions from."""

    def __init__(
        self, servable: Servable, *, json_response: bool = False, keepalive_seconds: float = 15.0
    ) -> None:
        self.servable = servable
        self.json_response = json_response
        self.keepalive_seconds = keepalive_seconds
        self.pool: SessionPool | None = None

    async def end_idle_streams(self) -> None:
        """End the open listen streams with their final result (a stopping app's first step)."""
        assert self.pool is not None
        await self.pool.end_listen_streams()

    async def end_streams(self) -> None:
        """End the listen streams, then close every pooled session (the app is stopping)."""
        assert self.pool is not None
        await self.pool.end_listen_streams()
        await self.pool.close()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await receive()
            async with self.servable.serving() as opener:
                self.pool = SessionPool(opener)
                await send({"type": "lifespan.startup.complete"})
                await receive()
                await self.end_streams()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["method"] != "POST":
            await _plain(send, 405, b"")
            return
        body = b""
        for _ in range(10_000):
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            decoded = json.loads(body)
        except ValueError:
            await _plain(send, 400, b"parse error")
            return
        declared = dict(scope["headers"]).get(b"mcp-protocol-version")
        if not is_modern_request(declared and declared.decode("latin-1"), decoded):
            await _plain(send, 400, b"handshake era: not served by this test app")
            return
        assert self.pool is not None
        await serve_modern(
            scope,
            receive,
            send,
            body=body,
            message=decoded,
            pool=self.pool,
            json_response=self.json_response,
            keepalive_seconds=self.keepalive_seconds,
        )


modern_only_app = ModernOnlyApp


async def _plain(send: Any, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": []})
    await send({"type": "http.response.body", "body": body})


class Served:
    """An ASGI app served by uvicorn in a thread; `url` is its `/mcp` endpoint."""

    def __init__(self, app: Any, path: str = "/mcp") -> None:
        self.app = app
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        port = self._sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.url = self.base + path
        config = uvicorn.Config(
            app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2
        )
        self.server = uvicorn.Server(config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def serve() -> None:
            self.loop = asyncio.get_running_loop()
            await self.server.serve(sockets=[self._sock])

        asyncio.run(serve())

    def __enter__(self) -> Served:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self._thread.join(timeout=15)
        self._sock.close()


def enveloped(**params: Any) -> dict[str, Any]:
    """Params carrying the 2026-07-28 envelope (merged with any `_meta` given)."""
    meta = {**META, **params.pop("_meta", {})}
    return {**params, "_meta": meta}


def headers_for(method: str, params: dict[str, Any] | None = None, **extra: str) -> dict[str, str]:
    """The headers a conforming client sends with a modern request (overridable)."""
    found = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
    }
    if params and method in ("tools/call", "prompts/get") and "name" in params:
        found["Mcp-Name"] = str(params["name"])
    found.update(extra)
    return found


def sse_frames(text: str) -> list[dict[str, Any]]:
    """The JSON messages of an event-stream body, in order (comments skipped)."""
    frames = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")]
        if any(data):  # a priming event (an id, empty data) carries no message
            frames.append(json.loads("\n".join(data)))
    return frames


def abandon_a_nap(url: str, counts: dict[str, int]) -> None:
    """Call `nap` for 30 s and leave after 0.5 s; wait (bounded) until the server has counted
    one more cancelled call (`build_server`'s `counts`)."""
    before = counts["cancelled"]
    params = enveloped(name="nap", arguments={"seconds": 30})
    with pytest.raises(httpx2.ReadTimeout):
        httpx2.post(
            url,
            headers=headers_for("tools/call", params),
            content=body("tools/call", params),
            timeout=0.5,
        )
    for _ in range(200):
        if counts["cancelled"] > before:
            break
        time.sleep(0.05)
    assert counts["cancelled"] == before + 1


def raw_post(
    base: str, path: str, headers: list[tuple[str, str]], payload: bytes
) -> tuple[int, bytes]:
    """POST over a bare socket (for header values an HTTP client library refuses to send);
    returns the status and the body (the response must have a Content-Length)."""
    host, port = base.removeprefix("http://").split(":")
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", f"Content-Length: {len(payload)}"]
    lines += [f"{name}: {value}" for name, value in headers]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        for _ in range(1000):
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
            head, sep, rest = received.partition(b"\r\n\r\n")
            if sep:
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if len(rest) >= length:
                    break
    head, _, rest = received.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, rest


def build_server() -> tuple[Server, dict[str, int]]:
    """A toolwire Server with the tools these tests call, and its cancellation counter."""
    server = Server("modern-test", version="1.2.3", instructions="Use the tools.")
    counts = {"cancelled": 0}

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    async def progress(ctx: ToolContext[None], steps: int = 3) -> str:
        """Report progress at every step."""
        for done in range(1, steps + 1):
            await ctx.report_progress(done, steps, f"step {done}/{steps}")
        return f"done {steps}"

    @server.tool
    async def chatty(ctx: ToolContext[None]) -> str:
        """Log one message."""
        await ctx.info("hello from the tool")
        return "logged"

    @server.tool
    async def nap(seconds: float) -> str:
        """Sleep, counting cancellations."""
        try:
            await asyncio.sleep(min(seconds, 60))
        except asyncio.CancelledError:
            counts["cancelled"] += 1
            raise
        return f"slept {seconds}"

    @server.tool
    def where(
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
        count: Annotated[int, Field(json_schema_extra={"x-mcp-header": "Count"})] = 0,
        flag: Annotated[bool, Field(json_schema_extra={"x-mcp-header": "Flag"})] = False,
    ) -> str:
        """Echo the mirrored arguments."""
        return f"{region} {count} {flag}"

    @server.tool
    async def grow() -> str:
        """Publish one more tool (the tool list changes); async, so that the change is
        published on the serving loop."""
        counts["grown"] = counts.get("grown", 0) + 1
        name = f"extra_{counts['grown']}"
        server.add_tool(lambda: name, name=name)
        return name

    return server, counts
