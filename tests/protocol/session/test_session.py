"""ServerSession driven with bytes in, bytes out: both eras, cancellation, timeouts."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import anyio
import pytest

from toolwire import Server, ToolContext

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _server() -> Server:
    server = Server("t", version="9", instructions="be nice", max_sync_workers=1)

    @server.tool
    def add(a: int, b: int = 2) -> int:
        """Add."""
        return a + b

    release = threading.Event()
    server.release = release  # type: ignore[attr-defined]

    @server.tool(timeout=0.2)
    def stuck() -> str:
        """Block until released."""
        release.wait(10)
        return "late"

    @server.tool
    def blocker() -> str:
        """Block until released (no timeout)."""
        release.wait(10)
        return "unblocked"

    @server.tool
    async def chatty(ctx: ToolContext[None]) -> str:
        """Log at two levels."""
        await ctx.debug("quiet")
        await ctx.warning("loud")
        return "ok"

    return server


class Wire:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.arrived = anyio.Event()

    async def send(self, frame: bytes) -> None:
        self.frames.append(json.loads(frame))
        self.arrived.set()

    async def reply(self, request_id: Any, within: float = 10) -> dict[str, Any]:
        with anyio.fail_after(within):
            while True:
                for frame in self.frames:
                    if frame.get("id") == request_id and "method" not in frame:
                        return frame
                self.arrived = anyio.Event()
                await self.arrived.wait()


async def _session(server: Server, wire: Wire, body: Any) -> None:
    from toolwire.protocol.session.session import ServerSession

    async with ServerSession(server, wire.send) as session:
        await body(session)
        session.close()


def _req(i: Any, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


INIT = _req(1, "initialize", {"protocolVersion": "1999-01-01", "capabilities": {}})


def run(body: Any, server: Server | None = None) -> Wire:
    wire = Wire()
    anyio.run(_session, server or _server(), wire, body)
    return wire


def test_unknown_version_gets_the_latest_and_null_means_default() -> None:
    async def body(s: Any) -> None:
        await s.receive(INIT)
        init = await wire_ref.reply(1)
        assert init["result"]["protocolVersion"] == "2025-11-25"
        assert init["result"]["instructions"] == "be nice"
        await s.receive(_req(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": None}}))
        assert (await wire_ref.reply(2))["result"]["structuredContent"] == {"result": 3}

    wire_ref = Wire()
    anyio.run(_session, _server(), wire_ref, body)


def test_sync_timeout_is_answered_at_the_deadline_and_the_slot_is_freed() -> None:
    server = _server()
    wire = Wire()

    async def body(s: Any) -> None:
        await s.receive(INIT)
        await wire.reply(1)
        started = time.monotonic()
        await s.receive(_req(2, "tools/call", {"name": "stuck"}))
        timed_out = await wire.reply(2)
        assert timed_out["result"] == {
            "content": [{"type": "text", "text": "Tool 'stuck' timed out after 0.2 seconds."}],
            "isError": True,
        }
        assert time.monotonic() - started < 5  # answered long before the thread ends (10 s)
        # max_sync_workers=1 and the stuck thread still runs: the slot must be free anyway
        await s.receive(_req(3, "tools/call", {"name": "add", "arguments": {"a": 1}}))
        assert (await wire.reply(3))["result"]["structuredContent"] == {"result": 3}
        server.release.set()  # type: ignore[attr-defined]

    anyio.run(_session, server, wire, body)


def test_cancelled_request_gets_no_reply_and_the_session_goes_on() -> None:
    server = _server()
    wire = Wire()

    async def body(s: Any) -> None:
        await s.receive(INIT)
        await wire.reply(1)
        await s.receive(_req(2, "tools/call", {"name": "blocker"}))
        await anyio.sleep(0.1)
        await s.receive(
            json.dumps(
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
            ).encode()
        )
        await s.receive(_req(3, "tools/call", {"name": "add", "arguments": {"a": 5}}))
        assert (await wire.reply(3))["result"]["structuredContent"] == {"result": 7}
        await anyio.sleep(0.2)
        assert not any(frame.get("id") == 2 for frame in wire.frames)
        server.release.set()  # type: ignore[attr-defined]

    anyio.run(_session, server, wire, body)


def test_log_level_and_list_changed() -> None:
    server = _server()
    wire = Wire()

    async def body(s: Any) -> None:
        await s.receive(INIT)
        await wire.reply(1)
        await s.receive(_req(2, "logging/setLevel", {"level": "warning"}))
        await wire.reply(2)
        await s.receive(_req(3, "tools/call", {"name": "chatty"}))
        await wire.reply(3)
        logs = [f["params"] for f in wire.frames if f.get("method") == "notifications/message"]
        assert logs == [{"level": "warning", "data": "loud"}]
        server.remove_tool("chatty")
        await anyio.sleep(0.05)
        assert {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}} in (
            wire.frames
        )
        await s.receive(_req(4, "tools/call", {"name": "chatty"}))
        assert (await wire.reply(4))["error"] == {"code": -32602, "message": "Unknown tool: chatty"}
        server.release.set()  # type: ignore[attr-defined]

    anyio.run(_session, server, wire, body)


def test_modern_era_envelope_errors_and_result_shape() -> None:
    import mcp_types

    wire = Wire()

    async def body(s: Any) -> None:
        await s.receive(_req(1, "server/discover", {"_meta": MODERN_META}))
        discover = (await wire.reply(1))["result"]
        assert discover["supportedVersions"] == ["2026-07-28"]
        assert discover["resultType"] == "complete"
        assert discover["_meta"]["io.modelcontextprotocol/serverInfo"] == {
            "name": "t",
            "version": "9",
        }
        await s.receive(_req(2, "tools/list", {"_meta": MODERN_META}))
        listed = (await wire.reply(2))["result"]
        assert (listed["ttlMs"], listed["cacheScope"]) == (0, "private")
        mcp_types.ListToolsResult.model_validate(listed)
        await s.receive(_req(3, "tools/list", {}))
        assert (await wire.reply(3))["error"]["code"] == -32602
        bad = {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2030-01-01"}
        await s.receive(_req(4, "tools/list", {"_meta": bad}))
        assert (await wire.reply(4))["error"] == {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28"], "requested": "2030-01-01"},
        }
        await s.receive(_req(6, "initialize", {"protocolVersion": "2025-11-25"}))
        assert (await wire.reply(6))["error"]["code"] == -32022
        await s.receive(
            _req(5, "tools/call", {"name": "add", "arguments": {"a": 1}, "_meta": MODERN_META})
        )
        called = (await wire.reply(5))["result"]
        assert called["resultType"] == "complete" and called["structuredContent"] == {"result": 3}

    anyio.run(_session, _server(), wire, body)


@pytest.mark.parametrize("count", [0, 1, 100, 101, 250])
def test_pagination(count: int) -> None:
    server = Server("many")
    for i in range(count):
        exec(f"def tool_{i}() -> str:\n    return 'x'", globals())
        server.add_tool(globals()[f"tool_{i}"])
    wire = Wire()

    async def body(s: Any) -> None:
        await s.receive(INIT)
        await wire.reply(1)
        names: list[str] = []
        cursor = None
        for page in range(10):
            params = {"cursor": cursor} if cursor else {}
            await s.receive(_req(10 + page, "tools/list", params))
            result = (await wire.reply(10 + page))["result"]
            names += [t["name"] for t in result["tools"]]
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        assert names == [f"tool_{i}" for i in range(count)]
        await s.receive(_req(99, "tools/list", {"cursor": "garbage!"}))
        assert (await wire.reply(99))["error"]["code"] == -32602

    anyio.run(_session, server, wire, body)


def test_a_session_opened_outside_an_asyncio_loop_is_refused_naming_the_requirement() -> None:
    from toolwire.protocol.session.session import ServerSession

    server = _server()
    session = ServerSession(server, Wire().send)
    opening = session.__aenter__()
    # Driven by hand, as an event loop other than asyncio's would drive it.
    with pytest.raises(RuntimeError, match=r"on asyncio only.*not on another anyio backend"):
        opening.send(None)
    assert session.loop is None and session.sync_limiter is None
