"""`subscriptions/listen` against a real toolwire subprocess (tests/interop/servers/dynamic.py).

The official `mcp.Client` at 2026-07-28 opens a listen stream with `Client.listen()` and hears
`notifications/tools/list_changed` when a tool call adds or removes a tool while serving; a raw
JSON-RPC line client checks the exact frames on the pipe against the official 2026-07-28 models.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest
from tests.interop._support import ROOT, SERVERS, RawClient
from tests.protocol.harness import check_listen_frame

pytestmark = pytest.mark.anyio

DYNAMIC = SERVERS / "dynamic.py"
V = "2026-07-28"
SUB = "io.modelcontextprotocol/subscriptionId"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _params(launcher: str) -> Any:
    from mcp import StdioServerParameters

    args = [str(DYNAMIC)] if launcher == "script" else ["-m", "toolwire", "run", str(DYNAMIC)]
    return StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT))


@pytest.mark.parametrize("launcher", ["script", "cli"])
@pytest.mark.parametrize("mode", ["2026-07-28", "auto"])
async def test_official_client_hears_tools_added_and_removed(mode: str, launcher: str) -> None:
    from mcp import Client
    from mcp.client.subscriptions import ToolsListChanged
    from mcp_types import SubscriptionFilter

    with anyio.fail_after(60):
        async with Client(_params(launcher), mode=mode) as client:
            assert client.protocol_version == V
            if mode == "auto":  # discovered: tools.listChanged, as the SDK advertises it
                caps = client.server_capabilities
                assert caps is not None and caps.tools is not None
                assert caps.tools.list_changed is True
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == {"grow", "shrink"}
            async with client.listen(tools_list_changed=True, prompts_list_changed=True) as sub:
                # both honored: every server may publish prompts (at any time)
                assert sub.honored == SubscriptionFilter(
                    tools_list_changed=True, prompts_list_changed=True
                )
                events = aiter(sub)

                grown = await client.call_tool("grow", {"name": "late"})
                assert grown.is_error is False
                with anyio.fail_after(10):
                    assert await anext(events) == ToolsListChanged()
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert names == {"grow", "shrink", "late"}
                echoed = await client.call_tool("late", {"text": "hi"})
                assert echoed.is_error is False
                assert [block.text for block in echoed.content] == ["hi"]

                await client.call_tool("shrink", {"name": "late"})
                with anyio.fail_after(10):
                    assert await anext(events) == ToolsListChanged()
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert names == {"grow", "shrink"}
            # leaving listen() cancels the stream; the connection serves on
            assert (await client.call_tool("grow", {"name": "after"})).is_error is False
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "after" in names


async def test_a_handshake_era_client_cannot_listen() -> None:
    from mcp import Client
    from mcp.client.subscriptions import ListenNotSupportedError

    with anyio.fail_after(60):
        async with Client(_params("script"), mode="legacy") as client:
            with pytest.raises(ListenNotSupportedError):
                async with client.listen(tools_list_changed=True):
                    pass


class _Raw(RawClient):
    async def request(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        """A modern request: `params` plus the 2026-07-28 envelope."""
        await self.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": method,
                "params": {**params, "_meta": ENVELOPE},
            }
        )


def _check_frame(line: bytes, subscription_id: Any) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(line)
    check_listen_frame(message, subscription_id)
    return message


async def test_raw_listen_frames_on_the_pipe() -> None:
    from mcp_types import methods

    proc = await anyio.open_process([sys.executable, str(DYNAMIC)], cwd=str(ROOT))
    async with proc:
        raw = _Raw(proc)
        with anyio.fail_after(60):
            listen = {"notifications": {"toolsListChanged": True}}
            methods.validate_client_request(
                "subscriptions/listen", V, {**listen, "_meta": ENVELOPE}
            )
            await raw.request("L", "subscriptions/listen", listen)
            await raw.request(2, "subscriptions/listen", {"notifications": {}})
            ack = await raw.line()
            assert ack == (
                b'{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",'
                b'"params":{"notifications":{"toolsListChanged":true},'
                b'"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}'
            )
            _check_frame(ack, "L")
            _check_frame(await raw.line(), 2)

            await raw.request(3, "tools/call", {"name": "grow", "arguments": {"name": "x"}})
            reply, others = await raw.until_reply(3)
            assert reply["result"]["content"] == [{"type": "text", "text": "added x"}]
            if not others:  # the change may follow the call's reply on the pipe
                others.append(await raw.line())
            assert others == [
                b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed",'
                b'"params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}'
            ]
            _check_frame(others[0], "L")

            # cancelling the stream: no response, and no more frames for it
            await raw.send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": "L"},
                }
            )
            await raw.request(4, "tools/call", {"name": "shrink", "arguments": {"name": "x"}})
            _, others = await raw.until_reply(4)
            await raw.request(5, "tools/list", {})  # a fence: anything pending comes before it
            listed, later = await raw.until_reply(5)
            assert [tool["name"] for tool in listed["result"]["tools"]] == ["grow", "shrink"]
            assert others + later == []
        assert proc.stdin is not None
        await proc.stdin.aclose()  # streams still open do not keep the server alive
        with anyio.fail_after(10):
            assert await proc.wait() == 0
    for line in raw.lines:
        assert json.loads(line).get("id") not in ("L", 2)  # no listen was ever answered


@pytest.mark.skipif(sys.platform == "win32", reason="no SIGTERM delivery to the event loop")
async def test_sigterm_ends_each_listen_stream_with_its_result() -> None:
    import signal

    from mcp_types import _v2026_07_28 as wire

    proc = await anyio.open_process([sys.executable, str(DYNAMIC)], cwd=str(ROOT))
    async with proc:
        raw = _Raw(proc)
        with anyio.fail_after(60):
            await raw.request("L", "subscriptions/listen", {"notifications": {}})
            await raw.request(7, "subscriptions/listen", {"notifications": {}})
            _check_frame(await raw.line(), "L")
            _check_frame(await raw.line(), 7)
            proc.send_signal(signal.SIGTERM)
            ends = [json.loads(await raw.line()) for _ in range(2)]
            assert [end["id"] for end in ends] == ["L", 7]
            for end in ends:
                assert end["result"]["resultType"] == "complete"
                parsed = wire.SubscriptionsListenResult.model_validate(end["result"], by_name=False)
                assert parsed.meta.io_modelcontextprotocol_subscription_id == end["id"]
                assert parsed.meta.io_modelcontextprotocol_server_info["name"] == "dynamic"
            assert await proc.wait() == 0
        assert raw.buffered == b""  # nothing after the two results
