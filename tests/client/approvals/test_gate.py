"""`ApprovalPolicy` beyond the SDK ("annotations"), and the one gate in a server's `call_tool`."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from toolwire import Server, function_tool
from toolwire.client import MCPServerInMemory
from toolwire.client.approvals import ApprovalPolicy, gate_reason
from toolwire.errors import UserError


@function_tool
def erase(path: str) -> str:
    """Erase a file.

    Args:
        path: The file.
    """
    return f"erased {path}"


@pytest.mark.parametrize(
    ("annotations", "asks"),
    [
        (None, True),
        ({}, True),
        ({"readOnlyHint": True}, False),
        ({"readOnlyHint": False}, True),
        ({"destructiveHint": True}, True),
        ({"destructiveHint": False}, False),
        ({"readOnlyHint": True, "destructiveHint": True}, True),
        ({"readOnlyHint": False, "destructiveHint": False}, False),
        ({"idempotentHint": True, "openWorldHint": False}, True),
    ],
)
def test_annotations_policy(annotations: Any, asks: bool) -> None:
    for has_callback, setting in ((True, None), (False, "annotations"), (True, "annotations")):
        policy = ApprovalPolicy.resolve(setting, has_callback=has_callback)
        assert policy.requires("erase", annotations) is asks


def test_annotations_policy_reads_the_mcp_model_too() -> None:
    mcp_types = pytest.importorskip("mcp.types")
    policy = ApprovalPolicy.resolve("annotations", has_callback=False)
    assert policy.requires("t", mcp_types.ToolAnnotations(readOnlyHint=True)) is False
    assert policy.requires("t", mcp_types.ToolAnnotations(destructiveHint=True)) is True


def test_no_setting_and_no_callback_asks_for_nothing() -> None:
    assert ApprovalPolicy.resolve(None, has_callback=False).requires("t", None) is False


def _recording_server() -> tuple[Server, list[str]]:
    """A server whose tools write down each call they receive."""
    ran: list[str] = []
    server = Server("fs")

    @server.tool(annotations={"destructiveHint": True})
    def rm(path: str) -> str:
        """Remove a file."""
        ran.append(f"rm {path}")
        return f"removed {path}"

    @server.tool(annotations={"readOnlyHint": True})
    def cat(path: str) -> str:
        """Read a file."""
        ran.append(f"cat {path}")
        return f"contents of {path}"

    @server.tool(annotations={"destructiveHint": False})
    def mkdir(path: str) -> str:
        """Create a directory."""
        ran.append(f"mkdir {path}")
        return f"made {path}"

    return server, ran


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def test_the_servers_callback_gates_call_tool_by_annotations() -> None:
    server, ran = _recording_server()
    asked: list[str] = []

    def deny(request: Any) -> Any:
        asked.append(request.data.name)
        return {"approve": False, "reason": "read-only day"}

    async def go() -> list[Any]:
        async with MCPServerInMemory(server, on_approval_request=deny) as client:
            return [
                await client.call_tool("rm", {"path": "a"}),
                await client.call_tool("cat", {"path": "a"}),
                await client.call_tool("mkdir", {"path": "d"}),
            ]

    rm, cat, mkdir = asyncio.run(go())
    assert asked == ["rm"]  # cat is read-only, mkdir is marked non-destructive
    assert ran == ["cat a", "mkdir d"]  # the denied call never reached the server
    assert rm.is_error is True
    assert _text(rm) == (
        "Tool call rejected: the call to 'rm' on MCP server 'in-memory: fs' was not approved "
        "(read-only day). The tool did not run."
    )
    assert (_text(cat), _text(mkdir)) == ("contents of a", "made d")


def test_always_asks_for_everything_and_approval_lets_the_call_through() -> None:
    server, ran = _recording_server()
    asked: list[str] = []

    async def allow(request: Any) -> Any:
        asked.append(f"{request.data.name} {json.loads(request.data.arguments)}")
        return {"approve": True}

    async def go() -> None:
        async with MCPServerInMemory(
            server, require_approval="always", on_approval_request=allow
        ) as client:
            await client.call_tool("mkdir", {"path": "d"})
            await client.call_tool("cat", {"path": "a"})

    asyncio.run(go())
    assert asked == ["mkdir {'path': 'd'}", "cat {'path': 'a'}"]
    assert ran == ["mkdir d", "cat a"]


def test_a_policy_assigned_after_construction_governs_the_next_call() -> None:
    server, ran = _recording_server()
    asked: list[str] = []

    def deny(request: Any) -> Any:
        asked.append(request.data.name)
        return {"approve": False, "reason": "tightened"}

    async def go() -> tuple[Any, Any, bool]:
        async with MCPServerInMemory(server, require_approval="never") as client:
            client.on_approval_request = deny
            client.require_approval = {"always": {"tool_names": ["rm"]}}
            denied = await client.call_tool("rm", {"path": "a"})
            client.on_approval_request = None  # nobody answers: a run would pause for rm
            (rm,) = [tool for tool in await client.function_tools() if tool.name == "rm"]
            with pytest.raises(UserError, match="Invalid require_approval value"):
                client.require_approval = "sometimes"
            return denied, client.require_approval, rm.needs_approval

    denied, kept, pauses = asyncio.run(go())
    assert asked == ["rm"] and ran == []  # asked, refused, never sent
    assert _text(denied).startswith("Tool call rejected: the call to 'rm'")
    assert kept == {"always": {"tool_names": ["rm"]}}  # a refused setting changes nothing
    assert pauses is True


def test_changing_a_listed_tool_changes_neither_the_gate_nor_the_required_check() -> None:
    server, ran = _recording_server()
    asked: list[str] = []

    def deny(request: Any) -> Any:
        asked.append(request.data.name)
        return {"approve": False}

    def relabel(context: Any, tool: Any) -> bool:  # a careless filter that edits what it sees
        tool.annotations = None if tool.name != "rm" else {"readOnlyHint": True}
        tool.input_schema["required"] = []
        return True

    async def go() -> tuple[Any, str]:
        async with MCPServerInMemory(server, on_approval_request=deny) as client:
            (listed,) = [tool for tool in await client.list_tools() if tool.name == "rm"]
            listed.annotations.destructive_hint = False
            listed.input_schema["required"] = []
            client.tool_filter = relabel
            await client.list_tools(run_context=object(), agent=object())
            denied = await client.call_tool("rm", {"path": "a"})
            with pytest.raises(UserError) as missing:
                await client.call_tool("rm", {})
            return denied, str(missing.value)

    denied, missing = asyncio.run(go())
    assert asked == ["rm"] and ran == []  # still destructive as served: asked, and refused
    assert denied.is_error is True
    assert missing.endswith("missing required parameters: path")


def test_callback_not_asked_when_the_policy_says_never() -> None:
    server, ran = _recording_server()

    def never_called(_request: Any) -> Any:
        raise AssertionError("asked")

    async def go() -> None:
        async with MCPServerInMemory(
            server, require_approval="never", on_approval_request=never_called
        ) as client:
            await client.call_tool("rm", {"path": "a"})

    asyncio.run(go())
    assert ran == ["rm a"]


def test_a_prefixed_tool_is_asked_about_by_its_remote_name() -> None:
    server, ran = _recording_server()
    seen: list[str] = []

    def deny(request: Any) -> Any:
        seen.append(request.data.name)
        return {"approve": False, "reason": "read-only day"}

    async def go() -> str:
        async with MCPServerInMemory(server, name="fs", prefix_tool_names=True) as client:
            tools = {tool.name: tool for tool in await client.function_tools(deny)}
            tool = tools["mcp_fs__rm"]
            assert tool.needs_approval is False  # the callback answers; no run pauses
            return str(await tool.on_invoke_tool(_context("mcp_fs__rm"), '{"path": "a"}'))

    text = asyncio.run(go())
    assert seen == ["rm"] and ran == []
    assert text == (
        "Tool call rejected: the call to 'rm' on MCP server 'fs' was not approved "
        "(read-only day). The tool did not run."
    )


def test_without_a_callback_function_tools_carry_needs_approval() -> None:
    server, ran = _recording_server()

    async def go() -> dict[str, Any]:
        async with MCPServerInMemory(server, require_approval="annotations") as client:
            return {tool.name: tool.needs_approval for tool in await client.function_tools()}

    assert asyncio.run(go()) == {"rm": True, "cat": False, "mkdir": False}
    assert ran == []


def test_a_malformed_answer_is_an_error_and_does_not_call() -> None:
    server, ran = _recording_server()

    async def go() -> None:
        async with MCPServerInMemory(
            server,
            require_approval="always",
            on_approval_request=lambda _request: "sure",  # type: ignore[arg-type,return-value]
        ) as client:
            await client.call_tool("rm", {"path": "a"})

    with pytest.raises(UserError, match="on_approval_request must return"):
        asyncio.run(go())
    assert ran == []


def test_an_unlisted_tool_is_judged_by_its_listed_annotations() -> None:
    # call_tool before any list_tools: the gate lists the tools to read the annotations,
    # rather than asking about a read-only tool or letting a destructive one through.
    server, ran = _recording_server()
    asked: list[str] = []

    def deny(request: Any) -> Any:
        asked.append(request.data.name)
        return {"approve": False}

    async def go() -> None:
        async with MCPServerInMemory(server, on_approval_request=deny) as client:
            await client.call_tool("cat", {"path": "a"})
            await client.call_tool("rm", {"path": "a"})

    asyncio.run(go())
    assert asked == ["rm"] and ran == ["cat a"]


def test_the_manager_hands_its_callback_to_servers_without_one() -> None:
    from toolwire.client import MCPServerManager

    server, ran = _recording_server()
    mine: list[str] = []
    own = MCPServerInMemory(
        server, on_approval_request=lambda r: mine.append("own") or {"approve": True}
    )
    bare = MCPServerInMemory(server)
    manager = MCPServerManager([own, bare], on_approval_request=lambda r: {"approve": False})
    assert bare.on_approval_request is manager.on_approval_request
    assert own.on_approval_request is not manager.on_approval_request

    async def go() -> None:
        async with manager:
            await own.call_tool("rm", {"path": "a"})
            await bare.call_tool("rm", {"path": "b"})

    asyncio.run(go())
    assert mine == ["own"] and ran == ["rm a"]


def test_the_manager_refuses_a_server_it_cannot_gate() -> None:
    from toolwire.client import MCPServerManager

    class Foreign:
        name = "elsewhere"

    with pytest.raises(UserError, match="cannot gate 'elsewhere'"):
        MCPServerManager([Foreign()], on_approval_request=lambda r: {"approve": True})


def test_a_callback_that_is_not_callable_is_refused_where_it_is_given() -> None:
    from toolwire.client import MCPServerManager

    server, ran = _recording_server()
    with pytest.raises(UserError, match="on_approval_request must be callable, got 'yes'"):
        MCPServerInMemory(server, on_approval_request="yes")
    with pytest.raises(UserError, match="on_approval_request must be callable, got 'yes'"):
        MCPServerManager([MCPServerInMemory(server)], on_approval_request="yes")  # type: ignore[arg-type]

    async def go() -> None:
        async with MCPServerInMemory(server) as client:
            with pytest.raises(UserError, match="on_approval_request must be callable, got 3"):
                await client.function_tools(3)  # type: ignore[arg-type]

    asyncio.run(go())
    assert ran == []


@pytest.mark.parametrize(
    ("annotations", "reason"),
    [
        ({"destructiveHint": True}, "it is marked destructive (destructiveHint: true)"),
        (None, "its annotations do not say it is read-only or non-destructive"),
        ({"readOnlyHint": False}, "its annotations do not say it is read-only or non-destructive"),
    ],
)
def test_gate_reason_is_true_for_the_tool(annotations: Any, reason: str) -> None:
    assert gate_reason(annotations) == reason


def _context(name: str) -> Any:
    from toolwire import ToolContext

    return ToolContext(None, tool_name=name, tool_call_id="call_9", tool_arguments="{}")


def test_annotations_are_read_by_their_mcp_2_names_beside_fastmcp() -> None:
    """With fastmcp loaded, the camelCase names of `mcp` 2's models are shims that warn: the
    policy reads the snake_case fields, so a user running both sees no warning of ours. In a
    fresh interpreter, since fastmcp warns once per field and process."""
    import subprocess
    import sys

    script = (
        "import warnings, fastmcp, mcp_types\n"
        "from toolwire.client.approvals import annotations_ask, gate_reason\n"
        "warnings.simplefilter('error')  # after fastmcp, which sets its own filter\n"
        "safe = mcp_types.ToolAnnotations(read_only_hint=True)\n"
        "risky = mcp_types.ToolAnnotations(destructive_hint=True)\n"
        "assert annotations_ask(safe) is False and annotations_ask(risky) is True\n"
        "assert gate_reason(risky).startswith('it is marked destructive')\n"
        "assert annotations_ask(mcp_types.ToolAnnotations()) is True\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
