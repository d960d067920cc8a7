"""The fixture server's tools as toolwire `FunctionTool`s, over a real stdio MCP session.

A deliberately plain bridge (the `mcp` client, text results only) so that the approval tests
exercise `gate_tool` against a real server process without depending on the adapter.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolwire import FunctionTool

SERVER = Path(__file__).with_name("_server.py")


@dataclass
class Remote:
    """One remote tool: the converted tool and its MCP annotations."""

    tool: FunctionTool
    annotations: dict[str, Any] | None


def read_log(log: Path) -> list[dict[str, Any]]:
    """The calls the server received, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@asynccontextmanager
async def remote_tools(log: Path) -> AsyncIterator[dict[str, Remote]]:
    """Start the fixture server and yield its tools by name."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=[str(SERVER)],
        env={"APPROVALS_CALL_LOG": str(log), "PYTHONPATH": str(Path.cwd() / "src")},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        found: dict[str, Remote] = {}
        for entry in listed.tools:

            def invoker(name: str) -> Any:
                async def call(_ctx: Any, arguments: str) -> str:
                    result = await session.call_tool(name, json.loads(arguments or "{}"))
                    return "".join(getattr(block, "text", "") for block in result.content)

                return call

            annotations = (
                entry.annotations.model_dump(by_alias=True, exclude_none=True)
                if entry.annotations
                else None
            )
            found[entry.name] = Remote(
                FunctionTool(
                    name=entry.name,
                    description=entry.description or "",
                    params_json_schema=dict(entry.input_schema),
                    on_invoke_tool=invoker(entry.name),
                    strict_json_schema=False,
                ),
                annotations,
            )
        yield found
