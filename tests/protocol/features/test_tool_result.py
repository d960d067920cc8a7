"""`ToolResult` on the wire: its content for the model, its structured part as `structuredContent`.

Each era is driven through a real `ServerSession` and checked on the bytes it sends: 2025-03-26
(no `structuredContent`: the content alone), 2025-11-25 and 2026-07-28 (both).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import ResourceLink, ToolOutputImage, ToolOutputText, ToolResult
from toolwire.server import Server

from ..harness import SERVER_INFO_KEY, handshake, meta, modern, validate

pytestmark = pytest.mark.anyio

PIXEL = "iVBORw0KGgo="
OLD, HANDSHAKE, MODERN = "2025-03-26", "2025-11-25", "2026-07-28"
STAMP = b'"resultType":"complete","_meta":{"' + SERVER_INFO_KEY.encode() + b'":'
STAMP += b'{"name":"r","version":"0.0.0"}}'


class Point(BaseModel):
    x: int
    y: int = 0


PAIR_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "number"}},
    "required": ["a"],
}


def _server() -> Server:
    server = Server("r")

    @server.tool
    def locate(n: int) -> ToolResult[Point]:
        """A point, described in words."""
        return ToolResult(Point(x=n), content=f"the point sits at x={n}")

    @server.tool
    def count(n: int) -> ToolResult[int]:
        """A wrapped integer."""
        return ToolResult(n, content=f"{n} items")

    @server.tool(output_schema=PAIR_SCHEMA)
    def pictured(n: int) -> ToolResult[dict[str, Any]]:
        """Several blocks."""
        return ToolResult(
            {"a": n},
            content=[
                ToolOutputText(text=f"a is {n}"),
                ToolOutputImage(image_url=f"data:image/png;base64,{PIXEL}"),
                ResourceLink(uri="file:///tmp/a.txt", name="a.txt"),
            ],
        )

    @server.tool
    def mirrored(n: int) -> ToolResult[Point]:
        """No content named: the JSON mirror, as a plain return."""
        return ToolResult(Point(x=n))

    @server.tool
    def words(n: int) -> ToolResult:
        """Only words."""
        return ToolResult(content=f"just {n}")

    @server.tool
    def untyped(n: int):  # type: ignore[no-untyped-def]
        """No annotation: a dict still travels as structured content."""
        return ToolResult({"a": n}, content="a dict")

    @server.tool
    def absent(n: int) -> ToolResult[Point]:
        """No structured part for an object schema."""
        return ToolResult(content="nothing to show")

    @server.tool
    def absent_wrapped(n: int) -> ToolResult[int | None]:
        """No structured part for a wrapped schema: null is a value there."""
        return ToolResult(None, content="no number")

    @server.tool(output_type=Point)
    def checked(x: Any) -> ToolResult[Point]:
        """Validated by its declared output type."""
        return ToolResult({"x": x}, content=f"checked {x}")

    @server.tool(output_schema=PAIR_SCHEMA)
    def not_a_number(n: int) -> ToolResult[dict[str, Any]]:
        """NaN cannot be JSON data."""
        return ToolResult({"a": n, "b": float("nan")}, content="b is not a number")

    return server


async def _call(version: str, name: str, arguments: dict[str, Any]) -> tuple[bytes, Any]:
    """The raw reply to one call, and its decoded result (validated for the version)."""
    if version == MODERN:
        async with modern(_server()) as peer:
            params = {"name": name, "arguments": arguments, "_meta": meta()}
            reply = await peer.request(1, "tools/call", params)
            raw = peer.raw[-1]
    else:
        async with handshake(_server(), version) as peer:
            reply = await peer.request(1, "tools/call", {"name": name, "arguments": arguments})
            raw = peer.raw[-1]
    validate("tools/call", version, reply["result"])
    return raw, reply["result"]


def _expected(version: str, body: bytes, structured: bytes | None) -> bytes:
    """The reply bytes: content, then structuredContent where the version has it."""
    result = b'{"content":' + body
    if structured is not None and version != OLD:
        result += b',"structuredContent":' + structured
    result += b',"isError":false'
    if version == MODERN:
        result += b"," + STAMP
    return b'{"jsonrpc":"2.0","id":1,"result":' + result + b"}}"


@pytest.mark.parametrize("version", [OLD, HANDSHAKE, MODERN])
async def test_content_and_structured_content_on_the_wire(version: str) -> None:
    raw, _ = await _call(version, "locate", {"n": 4})
    assert raw == _expected(
        version, b'[{"type":"text","text":"the point sits at x=4"}]', b'{"x":4,"y":0}'
    )
    raw, _ = await _call(version, "count", {"n": 7})
    assert raw == _expected(version, b'[{"type":"text","text":"7 items"}]', b'{"result":7}')


@pytest.mark.parametrize("version", [OLD, HANDSHAKE, MODERN])
async def test_output_blocks_are_shaped_for_the_version(version: str) -> None:
    raw, result = await _call(version, "pictured", {"n": 2})
    link = (
        b'{"type":"text","text":"file:///tmp/a.txt"}'
        if version == OLD  # no resource_link blocks before 2025-06-18
        else b'{"type":"resource_link","uri":"file:///tmp/a.txt","name":"a.txt"}'
    )
    body = (
        b'[{"type":"text","text":"a is 2"},{"type":"image","data":"'
        + PIXEL.encode()
        + b'","mimeType":"image/png"},'
        + link
        + b"]"
    )
    assert raw == _expected(version, body, b'{"a":2}')
    assert len(result["content"]) == 3


@pytest.mark.parametrize("version", [OLD, HANDSHAKE, MODERN])
async def test_without_content_the_json_mirror_is_sent_as_for_a_plain_return(version: str) -> None:
    raw, _ = await _call(version, "mirrored", {"n": 5})
    assert raw == _expected(
        version, b'[{"type":"text","text":"{\\"x\\":5,\\"y\\":0}"}]', b'{"x":5,"y":0}'
    )


@pytest.mark.parametrize("version", [HANDSHAKE, MODERN])
async def test_output_schemas_come_from_the_structured_type(version: str) -> None:
    server = _server()
    if version == MODERN:
        async with modern(server) as peer:
            listed = await peer.request(1, "tools/list", {"_meta": meta()})
    else:
        async with handshake(server, version) as peer:
            listed = await peer.request(1, "tools/list")
    schemas = {tool["name"]: tool.get("outputSchema") for tool in listed["result"]["tools"]}
    assert schemas["locate"] == Point.model_json_schema(mode="serialization")
    assert schemas["count"] == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    assert schemas["pictured"] == PAIR_SCHEMA
    assert schemas["words"] is None  # a bare ToolResult declares nothing
    assert schemas["untyped"] is None


@pytest.mark.parametrize("version", [HANDSHAKE, MODERN])
async def test_structured_content_follows_the_plain_return_rules(version: str) -> None:
    _, words = await _call(version, "words", {"n": 1})
    assert words["content"] == [{"type": "text", "text": "just 1"}]
    assert "structuredContent" not in words
    _, untyped = await _call(version, "untyped", {"n": 3})
    assert untyped["content"] == [{"type": "text", "text": "a dict"}]
    assert untyped["structuredContent"] == {"a": 3}
    _, absent = await _call(version, "absent", {"n": 3})
    assert absent["content"] == [{"type": "text", "text": "nothing to show"}]
    assert "structuredContent" not in absent  # null is no object: nothing is sent
    raw, _ = await _call(version, "absent_wrapped", {"n": 3})
    assert raw == _expected(version, b'[{"type":"text","text":"no number"}]', b'{"result":null}')


@pytest.mark.parametrize("version", [OLD, HANDSHAKE, MODERN])
async def test_the_declared_output_type_checks_the_structured_part(
    version: str, caplog: pytest.LogCaptureFixture
) -> None:
    raw, _ = await _call(version, "checked", {"x": "12"})
    # validated (and so converted) by the output type, the content left as given
    assert raw == _expected(version, b'[{"type":"text","text":"checked 12"}]', b'{"x":12,"y":0}')
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        _, refused = await _call(version, "checked", {"x": "twelve"})
    assert refused["isError"] is True
    assert "structuredContent" not in refused
    assert refused["content"] == [
        {"type": "text", "text": "An error occurred while running the tool. Please try again."}
    ]
    assert (
        "UserError: Function tool checked returned an output that does not match its declared "
        "output type" in caplog.text
    )
    assert "twelve" not in caplog.text  # tool data stays out of the log by default


async def test_nan_in_the_structured_part_leaves_it_out_and_keeps_the_content(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolwire"):
        raw, _ = await _call(HANDSHAKE, "not_a_number", {"n": 1})
    assert raw == _expected(HANDSHAKE, b'[{"type":"text","text":"b is not a number"}]', None)
    assert "tool 'not_a_number' returned NaN or Infinity" in caplog.text
