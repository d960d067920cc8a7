"""The MCP Inspector CLI against a toolwire server over the network (streamable HTTP, SSE).

Same Inspector as `test_inspector_cli.py` (Node 22 under `.tw-tools/`, skipped without it
except under CI); the server runs in its own process, listening on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.interop._inspector import EXIT_TOOL_ERROR, first_json, run_inspector
from tests.interop._served_http import Running, served_http
from tests.interop._support import ADD_INPUT_SCHEMA, DEFAULT_FAILURE, KITCHEN_TOOLS

# (transport, the path the Inspector is pointed at)
TRANSPORTS = [("http", "/mcp"), ("sse", "/sse")]


@pytest.fixture(scope="module", params=TRANSPORTS, ids=[name for name, _ in TRANSPORTS])
def remote(request: pytest.FixtureRequest) -> Iterator[tuple[Running, str, str]]:
    transport, path = request.param
    with served_http(transport) as server:
        yield server, transport, server.base + path


def _inspect(inspector: Path, remote: tuple[Running, str, str], *args: str) -> Any:
    _, transport, url = remote
    return run_inspector(inspector, [url, "--transport", transport], *args)


def test_tools_list(inspector_cli: Path, remote: tuple[Running, str, str]) -> None:
    listed = first_json(_inspect(inspector_cli, remote, "--method", "tools/list"))["result"]
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert set(tools) == KITCHEN_TOOLS
    assert tools["add"]["inputSchema"] == ADD_INPUT_SCHEMA
    assert tools["wipe"]["annotations"]["destructiveHint"] is True


def test_tool_call_results_and_errors(
    inspector_cli: Path, remote: tuple[Running, str, str]
) -> None:
    call = ("--method", "tools/call", "--tool-name")
    added = first_json(_inspect(inspector_cli, remote, *call, "add", "--tool-arg", "a=2", "b=3"))
    assert added["result"]["structuredContent"] == {"result": 5}
    assert added["result"]["content"] == [{"type": "text", "text": "5"}]

    profile = first_json(
        _inspect(inspector_cli, remote, *call, "profile", "--tool-arg", "name=Ada", "age=36")
    )
    assert profile["result"]["structuredContent"] == {"name": "Ada", "age": 36, "tags": []}

    failed = first_json(
        _inspect(inspector_cli, remote, *call, "boom", "--tool-arg", "reason=x"),
        EXIT_TOOL_ERROR,
    )
    assert failed["result"]["isError"] is True
    assert failed["result"]["content"] == [{"type": "text", "text": DEFAULT_FAILURE}]
