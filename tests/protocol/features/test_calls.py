"""tools/call: results of every kind, failures, timeouts, cancellation, progress and logs."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from typing import Any

import anyio
import pytest

from toolwire import ToolContext
from toolwire.errors import ToolTimeoutError
from toolwire.server import Server
from toolwire.tools.outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText

from ..harness import SERVER_INFO_KEY, handshake, meta, modern, validate

pytestmark = pytest.mark.anyio
PNG = "iVBORw0KGgo="


@dataclasses.dataclass
class Box:
    w: int
    h: int


def _kinds() -> Server:
    server = Server("k", version="1")

    @server.tool
    def data_image() -> ToolOutputImage:
        """Image."""
        return ToolOutputImage(image_url=f"data:image/png;base64,{PNG}")

    @server.tool
    def web_image() -> ToolOutputImage:
        """Image by URL."""
        return ToolOutputImage(image_url="https://example.com/a/cat.png")

    @server.tool
    def report() -> ToolOutputFileContent:
        """A file."""
        return ToolOutputFileContent(
            file_data="data:application/pdf;base64,JVBERg==", filename="r 1.pdf"
        )

    @server.tool
    def several() -> list[ToolOutputText | ToolOutputImage]:
        """Two blocks."""
        return [
            ToolOutputText(text="a"),
            ToolOutputImage(image_url=f"data:image/jpeg;base64,{PNG}"),
        ]

    @server.tool
    def as_dicts():  # type: ignore[no-untyped-def]
        """Dict forms, no annotation."""
        return [
            {"type": "text", "text": "x"},
            {"type": "image", "image_url": f"data:image/gif;base64,{PNG}"},
        ]

    @server.tool
    def mapping() -> dict[str, int]:
        """A dict."""
        return {"b": 2, "a": 1}

    @server.tool
    def box() -> Box:
        """A dataclass."""
        return Box(2, 3)

    @server.tool
    def untyped(kind: str):  # type: ignore[no-untyped-def]
        """No annotation at all."""
        return {"dict": {"k": [1]}, "none": None, "num": 1.5, "box": Box(1, 1)}[kind]

    @server.tool
    def nothing() -> None:
        """Returns None."""

    @server.tool(output_schema={"type": "string"})
    def explicit() -> str:
        """Explicit non-object schema is wrapped."""
        return "s"

    return server


CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "data_image",
        {},
        {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}], "isError": False},
    ),
    (
        "web_image",
        {},
        {
            "content": [
                {"type": "resource_link", "uri": "https://example.com/a/cat.png", "name": "cat.png"}
            ],
            "isError": False,
        },
    ),
    (
        "report",
        {},
        {
            "content": [
                {
                    "type": "resource",
                    "resource": {
                        "uri": "file:///r%201.pdf",
                        "mimeType": "application/pdf",
                        "blob": "JVBERg==",
                    },
                }
            ],
            "isError": False,
        },
    ),
    (
        "several",
        {},
        {
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": PNG, "mimeType": "image/jpeg"},
            ],
            "isError": False,
        },
    ),
    (
        "as_dicts",
        {},
        {
            "content": [
                {"type": "text", "text": "x"},
                {"type": "image", "data": PNG, "mimeType": "image/gif"},
            ],
            "isError": False,
        },
    ),
    (
        "mapping",
        {},
        {
            "content": [{"type": "text", "text": '{"b":2,"a":1}'}],
            "structuredContent": {"b": 2, "a": 1},
            "isError": False,
        },
    ),
    (
        "box",
        {},
        {
            "content": [{"type": "text", "text": '{"w":2,"h":3}'}],
            "structuredContent": {"w": 2, "h": 3},
            "isError": False,
        },
    ),
    (
        "untyped",
        {"kind": "dict"},
        {
            "content": [{"type": "text", "text": '{"k":[1]}'}],
            "structuredContent": {"k": [1]},
            "isError": False,
        },
    ),
    (
        "untyped",
        {"kind": "box"},
        {
            "content": [{"type": "text", "text": '{"w":1,"h":1}'}],
            "structuredContent": {"w": 1, "h": 1},
            "isError": False,
        },
    ),
    ("untyped", {"kind": "num"}, {"content": [{"type": "text", "text": "1.5"}], "isError": False}),
    ("untyped", {"kind": "none"}, {"content": [], "isError": False}),
    ("nothing", {}, {"content": [], "isError": False}),
    (
        "explicit",
        {},
        {
            "content": [{"type": "text", "text": "s"}],
            "structuredContent": {"result": "s"},
            "isError": False,
        },
    ),
]


@pytest.mark.parametrize(
    ("name", "arguments", "expected"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
async def test_result_kinds(name: str, arguments: dict[str, Any], expected: dict[str, Any]) -> None:
    async with handshake(_kinds()) as peer:
        reply = await peer.request(1, "tools/call", {"name": name, "arguments": arguments})
        assert reply["result"] == expected
        validate("tools/call", "2025-11-25", reply["result"])
    async with modern(_kinds()) as peer:
        reply = await peer.request(
            1, "tools/call", {"name": name, "arguments": arguments, "_meta": meta()}
        )
        stamped = {
            **expected,
            "resultType": "complete",
            "_meta": {SERVER_INFO_KEY: {"name": "k", "version": "1"}},
        }
        assert reply["result"] == stamped
        validate("tools/call", "2026-07-28", reply["result"])


async def test_older_versions_degrade_links_and_drop_structured_content() -> None:
    async with handshake(_kinds(), "2025-03-26") as peer:
        link = await peer.request(1, "tools/call", {"name": "web_image"})
        assert link["result"] == {
            "content": [{"type": "text", "text": "https://example.com/a/cat.png"}],
            "isError": False,
        }
        box = await peer.request(2, "tools/call", {"name": "box"})
        assert box["result"] == {
            "content": [{"type": "text", "text": '{"w":2,"h":3}'}],
            "isError": False,
        }
    async with handshake(_kinds()) as peer:
        listed = await peer.request(1, "tools/list")
        schemas = {t["name"]: t.get("outputSchema") for t in listed["result"]["tools"]}
        assert (
            schemas["data_image"] is None
            and schemas["several"] is None
            and schemas["nothing"] is None
        )
        assert schemas["explicit"] == {
            "type": "object",
            "properties": {"result": {"type": "string"}},
            "required": ["result"],
        }
        assert schemas["box"] == {
            "properties": {
                "w": {"title": "W", "type": "integer"},
                "h": {"title": "H", "type": "integer"},
            },
            "required": ["w", "h"],
            "title": "Box",
            "type": "object",
        }


def _failing() -> Server:
    server = Server("f")

    @server.tool
    def boom(secret: str) -> str:
        """Raises."""
        raise RuntimeError(f"database password is {secret}")

    def custom(ctx: Any, error: Exception) -> str:
        return f"custom: {error}"

    @server.tool(failure_error_function=custom)
    def loud(n: int) -> int:
        """Raises with a custom failure function."""
        raise ValueError("bad n")

    @server.tool
    def typed(count: int, label: str = "x", flag: bool | None = None) -> str:
        """Validates its arguments."""
        return f"{count}-{label}-{flag}"

    return server


async def test_exceptions_never_leak_by_default() -> None:
    async with handshake(_failing()) as peer:
        reply = await peer.request(
            1, "tools/call", {"name": "boom", "arguments": {"secret": "hunter2"}}
        )
        assert reply["result"] == {
            "content": [
                {
                    "type": "text",
                    "text": "An error occurred while running the tool. Please try again.",
                }
            ],
            "isError": True,
        }
        assert "hunter2" not in peer.raw[-1].decode()
        validate("tools/call", "2025-11-25", reply["result"])
        custom = await peer.request(2, "tools/call", {"name": "loud", "arguments": {"n": 1}})
        assert custom["result"] == {
            "content": [{"type": "text", "text": "custom: bad n"}],
            "isError": True,
        }
        # a custom failure function also owns the text for invalid arguments
        custom = await peer.request(3, "tools/call", {"name": "loud", "arguments": {"n": "x"}})
        assert custom["result"]["content"][0]["text"].startswith(
            "custom: Invalid JSON input for tool loud"
        )


async def test_invalid_arguments_name_the_parameter(monkeypatch: pytest.MonkeyPatch) -> None:
    async with handshake(_failing()) as peer:
        reply = await peer.request(
            1, "tools/call", {"name": "typed", "arguments": {"count": "many", "extra": 1}}
        )
        assert reply["result"] == {
            "content": [
                {
                    "type": "text",
                    "text": "Invalid arguments for tool 'typed': count: expected integer, got string; "
                    "extra: unexpected parameter",
                }
            ],
            "isError": True,
        }
        missing = await peer.request(2, "tools/call", {"name": "typed", "arguments": {}})
        assert missing["result"]["content"][0]["text"] == (
            "Invalid arguments for tool 'typed': count: missing required parameter"
        )
        assert missing["result"]["isError"] is True
    monkeypatch.setenv("TOOLWIRE_LOG_TOOL_DATA", "1")
    async with handshake(_failing()) as peer:
        reply = await peer.request(
            1, "tools/call", {"name": "typed", "arguments": {"count": "many"}}
        )
        text = reply["result"]["content"][0]["text"]
        assert text.startswith(
            "Invalid arguments for tool 'typed': count: Input should be a valid integer"
        )
        assert "many" not in text


async def test_null_for_a_defaulted_parameter_means_the_default() -> None:
    async with handshake(_failing()) as peer:
        reply = await peer.request(
            1,
            "tools/call",
            {"name": "typed", "arguments": {"count": 1, "label": None, "flag": None}},
        )
        assert reply["result"]["content"] == [{"type": "text", "text": "1-x-None"}]
        reply = await peer.request(2, "tools/call", {"name": "typed", "arguments": {"count": None}})
        assert reply["result"]["isError"] is True


async def test_unknown_disabled_and_malformed_calls_are_protocol_errors() -> None:
    server = Server("d")
    server.add_tool(lambda: "on", timeout=None)

    def off() -> str:
        return "off"

    from toolwire import function_tool

    server.add_tool(function_tool(off, is_enabled=False))
    server.add_tool(
        function_tool(lambda: "maybe", name_override="maybe", is_enabled=lambda ctx, agent: False)
    )
    async with handshake(server) as peer:
        names = [t["name"] for t in (await peer.request(1, "tools/list"))["result"]["tools"]]
        assert names == ["<lambda>"]
        for i, name in enumerate(["nope", "off", "maybe"], start=2):
            reply = await peer.request(i, "tools/call", {"name": name, "arguments": {}})
            assert reply == {
                "jsonrpc": "2.0",
                "id": i,
                "error": {"code": -32602, "message": f"Unknown tool: {name}"},
            }
        bad = [
            {"arguments": {}},
            {"name": 5},
            {"name": "<lambda>", "arguments": [1]},
            {"name": "<lambda>", "_meta": {"progressToken": True}},
            {"name": "<lambda>", "_meta": 3},
        ]
        for i, params in enumerate(bad, start=10):
            reply = await peer.request(i, "tools/call", params)
            assert reply["error"]["code"] == -32602
            assert reply["error"]["message"] == "Invalid request parameters"


def _slow(started: threading.Event, release: threading.Event, log: list[str]) -> Server:
    server = Server("s", max_sync_workers=1)

    async def sleep_logging_cancel(seconds: float) -> str:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            log.append("cancelled")
            raise
        return "woke"

    @server.tool(timeout=0.2)
    async def sleepy(seconds: float) -> str:
        """Sleeps."""
        return await sleep_logging_cancel(seconds)

    @server.tool
    async def napping(seconds: float) -> str:
        """Sleeps, with no server-side timeout (only a cancel ends it early)."""
        log.append("napping")
        return await sleep_logging_cancel(seconds)

    @server.tool(timeout=0.2)
    def blocking() -> str:
        """Blocks a thread until released."""
        started.set()
        release.wait(10)
        log.append("thread finished")
        return "late"

    @server.tool
    def blocking_forever() -> str:
        """Blocks until released, no timeout."""
        started.set()
        release.wait(10)
        log.append("forever finished")
        return "late"

    @server.tool
    def quick(n: int) -> int:
        """Sync and fast."""
        return n

    return server


async def test_timeouts_answer_at_the_deadline_for_async_and_sync_tools() -> None:
    started, release, log = threading.Event(), threading.Event(), []
    async with handshake(_slow(started, release, log)) as peer:
        reply = await peer.request(
            1, "tools/call", {"name": "sleepy", "arguments": {"seconds": 30}}
        )
        assert reply["result"] == {
            "content": [{"type": "text", "text": "Tool 'sleepy' timed out after 0.2 seconds."}],
            "isError": True,
        }
        assert log == ["cancelled"]
        reply = await peer.request(2, "tools/call", {"name": "blocking"})
        assert (
            reply["result"]["content"][0]["text"] == "Tool 'blocking' timed out after 0.2 seconds."
        )
        assert started.is_set() and log == ["cancelled"]  # the thread is still running
        # its limiter slot (the only one) is free again
        assert (await peer.request(3, "tools/call", {"name": "quick", "arguments": {"n": 7}}))[
            "result"
        ]["content"] == [{"type": "text", "text": "7"}]
        release.set()
        with anyio.fail_after(5):
            while "thread finished" not in log:
                await anyio.sleep(0.01)
        await anyio.sleep(0.05)
        assert [m.get("id") for m in peer.messages] == [1, 2, 3]  # the late result was dropped


async def test_a_timeout_is_worded_by_the_tools_timeout_error_function() -> None:
    from toolwire import function_tool

    seen: list[tuple[str, float]] = []

    def sync_words(ctx: Any, error: Exception) -> str:
        assert isinstance(error, ToolTimeoutError)
        seen.append((error.tool_name, error.timeout_seconds))
        return f"{ctx.tool_name} gave up ({error.timeout_seconds:g} s)"

    async def async_words(ctx: Any, error: Exception) -> str:
        return f"async: {error}"

    def broken_words(ctx: Any, error: Exception) -> str:
        raise RuntimeError("the wording failed")

    server = Server("timeouts")
    for name, words in (("plain", sync_words), ("awaited", async_words), ("broken", broken_words)):

        async def slow() -> str:
            """Sleeps past its timeout."""
            await anyio.sleep(30)
            return "late"

        server.add_tool(
            function_tool(slow, name_override=name, timeout=0.1, timeout_error_function=words)
        )
    async with handshake(server) as peer:
        texts = []
        for number, name in enumerate(("plain", "awaited", "broken"), 1):
            reply = await peer.request(number, "tools/call", {"name": name})
            assert reply["result"]["isError"] is True
            texts.append(reply["result"]["content"][0]["text"])
    assert texts == [
        "plain gave up (0.1 s)",
        "async: Tool 'awaited' timed out after 0.1 seconds.",
        "Tool 'broken' timed out after 0.1 seconds.",
    ]
    assert seen == [("plain", 0.1)]


async def test_cancelled_calls_get_no_reply_and_free_their_slot() -> None:
    started, release, log = threading.Event(), threading.Event(), []
    async with handshake(_slow(started, release, log)) as peer:
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": "a",
                "method": "tools/call",
                "params": {"name": "napping", "arguments": {"seconds": 30}},
            }
        )
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": "b",
                "method": "tools/call",
                "params": {"name": "blocking_forever"},
            }
        )
        with anyio.fail_after(5):  # both running: the async one awaits, the sync one blocks
            while not (started.is_set() and "napping" in log):
                await anyio.sleep(0.005)
        await peer.notify("notifications/cancelled", {"requestId": "a", "reason": "user"})
        await peer.notify("notifications/cancelled", {"requestId": "b"})
        with anyio.fail_after(5):
            while "cancelled" not in log:
                await anyio.sleep(0.005)
        reply = await peer.request("c", "tools/call", {"name": "quick", "arguments": {"n": 1}})
        assert reply["result"]["content"] == [{"type": "text", "text": "1"}]
        release.set()
        with anyio.fail_after(5):
            while "forever finished" not in log:
                await anyio.sleep(0.01)
        await anyio.sleep(0.3)
        assert [m.get("id") for m in peer.messages] == ["c"]
        assert peer.session is not None and peer.session.in_flight == 0


async def test_calls_run_concurrently_and_reply_out_of_order() -> None:
    server = Server("c")
    gate = anyio.Event()

    @server.tool
    async def wait_gate() -> str:
        """Waits for the gate."""
        await gate.wait()
        return "gated"

    @server.tool
    async def open_gate() -> str:
        """Opens it."""
        gate.set()
        return "opened"

    async with handshake(server) as peer:
        await peer.feed(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait_gate"}}
        )
        # a reused in-flight id is ignored (the original call keeps its single reply)
        await peer.feed(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "open_gate"}}
        )
        await anyio.sleep(0.05)
        assert peer.raw == []
        await peer.feed(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "open_gate"}}
        )
        await peer.wait_for(1)
        assert [(m["id"], m["result"]["content"][0]["text"]) for m in peer.messages] == [
            (2, "opened"),
            (1, "gated"),
        ]


def _reporting() -> Server:
    server = Server("r")

    @server.tool
    async def work(ctx: ToolContext[Any]) -> str:
        """Reports."""
        await ctx.report_progress(1, 3, "one")
        await ctx.report_progress(1, 3, "again")  # not increasing: dropped
        await ctx.report_progress(2.5)
        for level in ("debug", "info", "warning", "error"):
            await ctx.log(level, {"at": level}, logger="w")
        return "done"

    return server


async def test_progress_and_logs_in_the_handshake_era(caplog: pytest.LogCaptureFixture) -> None:
    async with handshake(_reporting()) as peer:
        await peer.request(1, "tools/call", {"name": "work", "_meta": {"progressToken": "tok"}})
        assert peer.notifications("notifications/progress") == [
            {"progressToken": "tok", "progress": 1, "total": 3, "message": "one"},
            {"progressToken": "tok", "progress": 2.5},
        ]
        assert [p["level"] for p in peer.notifications("notifications/message")] == [
            "debug",
            "info",
            "warning",
            "error",
        ]
        assert peer.notifications("notifications/message")[0] == {
            "level": "debug",
            "logger": "w",
            "data": {"at": "debug"},
        }
        assert any("progress must increase" in r.message for r in caplog.records)
        # the notifications come before the reply
        assert peer.messages[-1]["id"] == 1
        peer.take()
        await peer.request(2, "logging/setLevel", {"level": "warning"})
        await peer.request(3, "tools/call", {"name": "work"})
        assert peer.notifications("notifications/progress") == []
        assert [p["level"] for p in peer.notifications("notifications/message")] == [
            "warning",
            "error",
        ]
    from mcp_types import methods

    for frame in peer.messages:
        if frame.get("method"):
            methods.parse_server_notification(frame["method"], "2025-11-25", frame["params"])


async def test_progress_and_logs_in_the_modern_era() -> None:
    async with modern(_reporting()) as peer:
        await peer.request(1, "tools/call", {"name": "work", "_meta": meta(progressToken=7)})
        assert [p["progress"] for p in peer.notifications("notifications/progress")] == [1, 2.5]
        assert peer.notifications("notifications/message") == []  # no logLevel: no logs
        peer.take()
        await peer.request(
            2,
            "tools/call",
            {"name": "work", "_meta": meta(**{"io.modelcontextprotocol/logLevel": "info"})},
        )
        assert [p["level"] for p in peer.notifications("notifications/message")] == [
            "info",
            "warning",
            "error",
        ]
    from mcp_types import methods

    for frame in peer.messages:
        if frame.get("method"):
            methods.parse_server_notification(frame["method"], "2026-07-28", frame["params"])


def _careless() -> Server:
    server = Server("careless")

    @server.tool
    async def work(ctx: ToolContext[Any]) -> str:
        """Reports badly."""
        await ctx.report_progress(float("nan"))
        await ctx.report_progress(1, total=float("inf"))
        await ctx.report_progress(2, total="10")  # type: ignore[arg-type]
        await ctx.log("warn", "not a level")
        return "done"

    return server


@pytest.mark.parametrize("asked", [False, True], ids=["client asked nothing", "client asked"])
async def test_bad_progress_and_log_levels_are_logged_whatever_the_client_asked(
    asked: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """They were dropped in silence unless the client had sent a progress token and a log
    level, so a tool's mistake showed with some clients only; and a NaN or infinite total went
    out as is, which is no JSON number."""
    caplog.set_level(logging.WARNING, logger="toolwire")
    asks = {"progressToken": "tok", "io.modelcontextprotocol/logLevel": "debug"} if asked else {}
    params: dict[str, Any] = {"name": "work", "_meta": meta(**asks)}
    async with modern(_careless()) as peer:
        reply = await peer.request(1, "tools/call", params)
        assert reply["result"]["content"][0]["text"] == "done"
        sent = peer.notifications("notifications/progress")
        assert sent == (
            [{"progressToken": "tok", "progress": 1}, {"progressToken": "tok", "progress": 2}]
            if asked
            else []
        )
        assert peer.notifications("notifications/message") == []
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("toolwire")]
    assert "progress must be a finite number, not nan; dropped" in warnings
    assert "total must be a finite number or None, not inf; left out" in warnings
    assert "total must be a finite number or None, not '10'; left out" in warnings
    assert any(w.startswith("unknown log level 'warn'; use one of debug") for w in warnings)
