"""The `Server` API: decorators, add/remove, options, pagination, content round trips."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from toolwire import function_tool
from toolwire.errors import UserError
from toolwire.protocol.features.registry import infer_output_schema
from toolwire.protocol.session.methods import encode_cursor
from toolwire.protocol.wire.content import content_to_outputs, output_block
from toolwire.server import Server
from toolwire.tools.function_tool import FunctionTool
from toolwire.tools.outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText

from ..harness import handshake, meta, modern, validate

pytestmark = pytest.mark.anyio


def test_decorator_bare_and_with_options() -> None:
    server = Server("s")

    @server.tool
    def a(x: int) -> int:
        """A."""
        return x

    @server.tool(name_override="bee", title="Bee", annotations={"destructiveHint": True}, timeout=3)
    def b() -> str:
        """B."""
        return "b"

    assert isinstance(a, FunctionTool) and isinstance(b, FunctionTool)
    assert list(server.tools) == ["a", "bee"]
    entry = server.tools["bee"]
    assert (entry.title, entry.annotations, entry.timeout) == (
        "Bee",
        {"destructiveHint": True},
        3.0,
    )
    with pytest.raises(TypeError):
        server.tools["c"] = entry  # type: ignore[index]


def test_duplicates_unknown_removal_and_bad_options() -> None:
    server = Server("s")
    server.add_tool(lambda: 1)
    with pytest.raises(UserError, match="'<lambda>'"):
        server.add_tool(lambda: 2)
    with pytest.raises(KeyError, match=r"No tool named .nope.*<lambda>"):
        server.remove_tool("nope")
    server.remove_tool("<lambda>")
    assert len(server.tools) == 0

    def f() -> None:
        """F."""

    with pytest.raises(UserError, match="Unknown tool annotation"):
        server.add_tool(f, annotations={"readonly": True})
    with pytest.raises(UserError, match="true or false"):
        server.add_tool(f, annotations={"readOnlyHint": "yes"})
    with pytest.raises(ValueError, match="timeout"):
        server.add_tool(f, timeout=0)
    with pytest.raises(TypeError, match="add_tool"):
        server.add_tool(42)
    assert len(server.tools) == 0


def _add(server: Server, what: str, **options: Any) -> None:
    def body(x: int = 1) -> str:
        """B."""
        return "b"

    if what == "tool":
        server.add_tool(body, **options)
    elif what == "prompt":
        server.prompt(name="p", **options)(body)
    elif what == "resource":
        server.add_resource("x://a", "text", **options)
    elif what == "template":
        server.add_resource("x://t/{x}", body, **options)
    else:
        server.add_directory_resources(".", "d://x/", **options)


@pytest.mark.parametrize(
    ("what", "options", "message"),
    [
        ("tool", {"title": 5}, "title of tool 'body' must be a string, not int"),
        ("prompt", {"title": b"t"}, "title of prompt 'p' must be a string, not bytes"),
        ("prompt", {"description": 5}, "description of prompt 'p' must be a string, not int"),
        ("resource", {"name": 5}, "name of resource 'x://a' must be a string, not int"),
        ("resource", {"title": 5}, "title of resource 'x://a' must be a string, not int"),
        ("resource", {"description": []}, "description of resource 'x://a' must be a string"),
        ("resource", {"mime_type": 5}, "mime_type of resource 'x://a' must be a string"),
        ("resource", {"size": "9"}, "size of resource 'x://a' must be a whole number of bytes"),
        ("resource", {"size": -1}, "size of resource 'x://a' must be a whole number of bytes"),
        ("resource", {"size": True}, "size of resource 'x://a' must be a whole number of bytes"),
        ("resource", {"annotations": 5}, "annotations of resource 'x://a' must be a dict"),
        ("resource", {"meta": "m"}, "meta of resource 'x://a' must be a dict, not str"),
        ("template", {"title": 5}, "title of resource template 'x://t/{x}' must be a string"),
        ("directory", {"title": 5}, "title of directory resources 'd://x/' must be a string"),
    ],
)
def test_listing_options_of_the_wrong_type_are_refused_by_name(
    what: str, options: dict[str, Any], message: str
) -> None:
    # Passed on as they were, they made listings that clients refuse (a title of 5).
    server = Server("s")
    with pytest.raises(UserError) as refused:
        _add(server, what, **options)
    assert str(refused.value).startswith(message)


def test_annotations_accept_model_dump_objects() -> None:
    class Hints(BaseModel):
        readOnlyHint: bool = True
        openWorldHint: bool | None = None

    server = Server("s")
    server.add_tool(lambda: 1, annotations=Hints())
    assert server.tools["<lambda>"].annotations == {"readOnlyHint": True}


def test_agents_function_tool_is_taken_in() -> None:
    from agents import function_tool as agents_function_tool

    @agents_function_tool
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    server = Server("s")
    built = server.add_tool(shout)
    assert isinstance(built, FunctionTool)
    assert server.tools["shout"].tool.params_json_schema == shout.params_json_schema


def test_run_rejects_unknown_transports() -> None:
    with pytest.raises(ValueError, match=r"'websocket'.*stdio, http, sse"):
        Server("s").run("websocket")


class Node(BaseModel):
    value: int
    children: list[Node] = []


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, None),
        (None, None),
        (ToolOutputImage, None),
        (list[ToolOutputText | ToolOutputImage], None),
        (
            int,
            {
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"],
            },
        ),
        (
            list[str],
            {
                "type": "object",
                "properties": {"result": {"items": {"type": "string"}, "type": "array"}},
                "required": ["result"],
            },
        ),
        (dict[str, int], {"additionalProperties": {"type": "integer"}, "type": "object"}),
    ],
)
def test_output_schema_inference(annotation: Any, expected: Any) -> None:
    schema, wraps = infer_output_schema(annotation)
    assert schema == expected
    assert wraps is (expected is not None and "result" in expected.get("properties", {}))


def test_recursive_models_get_an_object_root() -> None:
    schema, wraps = infer_output_schema(Node)
    assert wraps is False and schema is not None
    assert schema["type"] == "object" and "$defs" in schema
    assert schema["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


async def test_recursive_model_results_validate() -> None:
    server = Server("s")

    @server.tool
    def tree() -> Node:
        """A tree."""
        return Node(value=1, children=[Node(value=2)])

    async with handshake(server) as peer:
        listed = await peer.request(1, "tools/list")
        validate("tools/list", "2025-11-25", listed["result"])
        called = await peer.request(2, "tools/call", {"name": "tree"})
        validate("tools/call", "2025-11-25", called["result"])
        assert called["result"]["structuredContent"] == {
            "value": 1,
            "children": [{"value": 2, "children": []}],
        }


def _many(count: int) -> Server:
    server = Server("p")
    for i in range(count):
        server.add_tool(function_tool(lambda: "x", name_override=f"t{i:03d}"))
    return server


async def test_pagination_walks_every_tool_once() -> None:
    async with handshake(_many(250)) as peer:
        names: list[str] = []
        cursor = None
        for i in range(10):
            params = {"cursor": cursor} if cursor else {}
            result = (await peer.request(i, "tools/list", params))["result"]
            validate("tools/list", "2025-11-25", result)
            names += [t["name"] for t in result["tools"]]
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        assert names == [f"t{i:03d}" for i in range(250)]
    async with modern(_many(101)) as peer:
        first = (await peer.request(1, "tools/list", {"_meta": meta()}))["result"]
        second = (
            await peer.request(2, "tools/list", {"cursor": first["nextCursor"], "_meta": meta()})
        )["result"]
        assert len(first["tools"]) == 100 and [t["name"] for t in second["tools"]] == ["t100"]
        assert "nextCursor" not in second
        validate("tools/list", "2026-07-28", second)


async def test_a_listed_page_follows_every_change_of_the_tool_set() -> None:
    """tools/list keeps each page it encoded, yet the next list sees a removed tool, an added
    one, and a callable `is_enabled` that turned false."""
    server = _many(101)
    shown = True

    def listed(reply: dict[str, Any]) -> list[str]:
        return [tool["name"] for tool in reply["result"]["tools"]]

    async with handshake(server) as peer:
        cursor = (await peer.request(1, "tools/list"))["result"]["nextCursor"]
        page = await peer.request(2, "tools/list", {"cursor": cursor})
        assert listed(page) == ["t100"]
        await peer.request(7, "tools/list", {"cursor": cursor})
        assert peer.raw[-1] == peer.raw[-2].replace(b'"id":2,', b'"id":7,', 1)
        server.remove_tool("t100")
        gone = await peer.request(3, "tools/list", {"cursor": cursor})
        assert gone["error"] == {
            "code": -32602,
            "message": "Invalid cursor",
            "data": {"cursor": cursor},
        }
        server.add_tool(
            function_tool(lambda: "y", name_override="late", is_enabled=lambda ctx, agent: shown)
        )
        assert listed(await peer.request(4, "tools/list", {"cursor": cursor})) == ["late"]
        shown = False
        hidden = await peer.request(5, "tools/list", {"cursor": cursor})
        assert hidden["error"]["message"] == "Invalid cursor"
        assert len(listed(await peer.request(6, "tools/list"))) == 100


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        "",
        encode_cursor(999, "tools/list"),
        encode_cursor(5, "tools/list"),
        encode_cursor(1, "prompts/list"),
        encode_cursor(1, ""),
        "dHcxOi0x",
        5,
    ],
)
async def test_invalid_cursors_are_invalid_params(cursor: Any) -> None:
    async with handshake(_many(5)) as peer:
        reply = await peer.request(1, "tools/list", {"cursor": cursor})
        assert reply["error"]["code"] == -32602


def test_content_round_trips() -> None:
    outputs = [
        ToolOutputText(text="t"),
        ToolOutputImage(image_url="data:image/png;base64,AAAA"),
        ToolOutputFileContent(file_data="data:application/pdf;base64,BBBB", filename="a.pdf"),
        ToolOutputFileContent(file_url="https://x.test/f.csv", filename="f.csv"),
    ]
    blocks = [output_block(o) for o in outputs]
    assert content_to_outputs(blocks) == outputs
    assert content_to_outputs(
        [
            {"type": "audio", "data": "CCCC", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///n.txt", "text": "hi"}},
            {
                "type": "resource_link",
                "uri": "https://x.test/c.png",
                "name": "c",
                "mimeType": "image/png",
            },
            {"type": "resource_link", "uri": "notes://today", "name": "today"},
            {"type": "resource_link", "uri": "file:///etc/hosts", "name": "hosts"},
            {"type": "mystery", "x": 1},
        ]
    ) == [
        ToolOutputFileContent(file_data="data:audio/wav;base64,CCCC"),
        ToolOutputText(text="hi"),
        ToolOutputImage(image_url="https://x.test/c.png"),
        # A link no model provider can fetch reaches the model as its JSON, as in the SDK.
        ToolOutputText(text='{"type":"resource_link","uri":"notes://today","name":"today"}'),
        ToolOutputText(text='{"type":"resource_link","uri":"file:///etc/hosts","name":"hosts"}'),
        ToolOutputText(text='{"type":"mystery","x":1}'),
    ]


async def test_a_cursor_of_one_list_is_refused_by_another() -> None:
    # Failed before the fix: a cursor held only an offset, so the second page of the tools
    # passed for one of the prompts and the client skipped prompts it never saw.
    server = _many(150)
    for i in range(150):
        server.add_prompt(lambda: "p", name=f"p{i:03d}")
    async with handshake(server) as peer:
        tools_cursor = (await peer.request(1, "tools/list"))["result"]["nextCursor"]
        prompts_cursor = (await peer.request(2, "prompts/list"))["result"]["nextCursor"]
        assert tools_cursor != prompts_cursor
        refused = await peer.request(3, "prompts/list", {"cursor": tools_cursor})
        assert refused["error"] == {
            "code": -32602,
            "message": "Invalid cursor",
            "data": {"cursor": tools_cursor},
        }
        refused = await peer.request(4, "resources/templates/list", {"cursor": prompts_cursor})
        assert refused["error"]["message"] == "Invalid cursor"
        page = await peer.request(5, "prompts/list", {"cursor": prompts_cursor})
        assert [prompt["name"] for prompt in page["result"]["prompts"]][:1] == ["p100"]


async def test_a_tool_that_needs_approval_is_refused_not_run_unasked() -> None:
    """`needs_approval` is enforced by an Agents SDK run; an MCP server has no run and ran
    every call. Before the refusal, `wipe` was listed with no hint and ran on the first call."""
    import agents

    calls: list[str] = []

    def wipe(path: str) -> str:
        calls.append(path)
        return f"wiped {path}"

    async def policy(ctx: Any, arguments: dict[str, Any], call_id: str) -> bool:
        return True

    server = Server("s")
    attempts = [
        lambda: server.add_tool(wipe, needs_approval=True),
        lambda: server.add_tool(function_tool(wipe, needs_approval=policy)),
        lambda: server.add_tool(agents.function_tool(wipe, needs_approval=True)),
        lambda: server.tool(needs_approval=True)(wipe),
    ]
    for attempt in attempts:
        with pytest.raises(UserError) as refused:
            attempt()
        assert str(refused.value).startswith("tool 'wipe' sets needs_approval, which only an")
    async with handshake(server) as peer:
        listed = await peer.request(1, "tools/list")
        called = await peer.request(2, "tools/call", {"name": "wipe", "arguments": {"path": "/"}})
    assert listed["result"]["tools"] == []
    assert called["error"]["code"] == -32602 and calls == []
    server.add_tool(wipe, needs_approval=False, annotations={"destructiveHint": True})
    assert [tool.name for tool in server.tools.values()] == ["wipe"]


async def test_a_tool_with_guardrails_is_refused_not_run_without_them() -> None:
    """Tool guardrails, like approvals, are applied by an Agents SDK run only; a server ran
    every call without them. Before the refusal the blocked path reached the tool."""
    import agents

    calls: list[str] = []

    @agents.tool_input_guardrail
    def no_root(data: Any) -> Any:
        return agents.ToolGuardrailFunctionOutput.reject_content("not /")

    @agents.tool_output_guardrail
    def quiet(data: Any) -> Any:
        return agents.ToolGuardrailFunctionOutput.allow()

    def wipe(path: str) -> str:
        calls.append(path)
        return f"wiped {path}"

    server = Server("s")
    for kind, guardrail in (("tool_input_guardrails", no_root), ("tool_output_guardrails", quiet)):
        options = {kind: [guardrail]}
        for tool in (wipe, agents.function_tool(wipe, **options)):
            with pytest.raises(UserError) as refused:
                server.add_tool(tool, **(options if tool is wipe else {}))
            assert str(refused.value).startswith(f"tool 'wipe' has {kind}, which only an")
    async with handshake(server) as peer:
        called = await peer.request(1, "tools/call", {"name": "wipe", "arguments": {"path": "/"}})
    assert called["error"]["code"] == -32602 and calls == []
