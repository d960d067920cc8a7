"""`Server.tool` and `Server.add_tool` take a tool's name and description in MCP's spelling
(`name`, `description`) and in function_tool's (`name_override`, `description_override`)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from toolwire import function_tool
from toolwire.server import Server

from ..harness import handshake

pytestmark = pytest.mark.anyio


def _listed(server: Server) -> dict[str, str]:
    return {name: entry.tool.description for name, entry in server.tools.items()}


def test_tool_takes_both_spellings() -> None:
    server = Server("names")

    @server.tool(name="mcp_style", description="Named the MCP way.")
    def first() -> str:
        """Docstring text."""
        return "1"

    @server.tool(name_override="sdk_style", description_override="Named the SDK way.")
    def second() -> str:
        """Docstring text."""
        return "2"

    @server.tool(name="mixed", description_override="Name one way, description the other.")
    def third() -> str:
        """Docstring text."""
        return "3"

    assert _listed(server) == {
        "mcp_style": "Named the MCP way.",
        "sdk_style": "Named the SDK way.",
        "mixed": "Name one way, description the other.",
    }
    assert first.name == "mcp_style"  # the decorator returns the FunctionTool it published


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"name": "a", "name_override": "b"},
            "tool() got both name= and name_override=; they are two spellings of the same "
            "option: pass only one",
        ),
        (
            {"description": "a", "description_override": "b"},
            "tool() got both description= and description_override=",
        ),
    ],
)
def test_tool_rejects_both_spellings_at_once(options: dict[str, Any], message: str) -> None:
    server = Server("names")
    with pytest.raises(TypeError, match=re.escape(message)):
        server.tool(**options)
    assert dict(server.tools) == {}


def test_add_tool_names_a_callable_either_way() -> None:
    def helper(x: int) -> int:
        """Docstring text."""
        return x

    server = Server("names")
    server.add_tool(helper, name="h1", description="First.", strict_mode=False)
    server.add_tool(helper, name_override="h2", description_override="Second.")
    assert _listed(server) == {"h1": "First.", "h2": "Second."}
    assert server.tools["h1"].tool.strict_json_schema is False  # other options pass through
    with pytest.raises(TypeError, match=re.escape("add_tool() got both name= and name_override=")):
        server.add_tool(helper, name="h3", name_override="h4")


def test_add_tool_publishes_a_renamed_copy_of_a_built_tool() -> None:
    @function_tool
    def original(x: int) -> int:
        """Return x."""
        return x

    server = Server("names")
    server.add_tool(original)
    copy = server.add_tool(original, name="renamed", description="The same, renamed.")
    assert (original.name, original.description) == ("original", "Return x.")
    assert (copy.name, copy.description) == ("renamed", "The same, renamed.")
    assert _listed(server) == {"original": "Return x.", "renamed": "The same, renamed."}
    assert server.add_tool(original, name_override="third").name == "third"


def test_add_tool_rejects_function_tool_options_for_a_built_tool() -> None:
    @function_tool
    def built() -> str:
        """Built already."""
        return "b"

    with pytest.raises(TypeError, match=re.escape("function_tool options (strict_mode)")):
        Server("names").add_tool(built, name="x", strict_mode=False)


async def test_a_renamed_tool_answers_under_its_new_name() -> None:
    @function_tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    server = Server("names")
    server.add_tool(add, name="plus")
    async with handshake(server) as peer:
        listed = await peer.request(1, "tools/list")
        assert [tool["name"] for tool in listed["result"]["tools"]] == ["plus"]
        reply = await peer.request(2, "tools/call", {"name": "plus", "arguments": {"a": 2}})
    # A validation failure names the tool by its published name.
    assert reply["result"]["isError"] is True
    assert reply["result"]["content"][0]["text"].startswith("Invalid arguments for tool 'plus'")


@pytest.mark.parametrize("bad", [3, "add", None])
def test_tool_refuses_what_is_not_a_function_naming_its_type(bad: Any) -> None:
    server = Server("names")
    with pytest.raises(TypeError, match=rf"^tool\(\) takes a function, not {type(bad).__name__}$"):
        server.tool(name="named")(bad)
    if bad is not None:
        with pytest.raises(TypeError, match=rf"not {type(bad).__name__}$"):
            server.tool(bad)
    assert dict(server.tools) == {}
