"""`toolwire inspect`: what a server publishes, and what each client dialect would reject."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..schema.problems import DIALECTS, schema_problems

if TYPE_CHECKING:
    from ..server import Server

__all__ = ["describe", "inspect_server", "render_tools"]

_LISTING_VERSION = "2025-11-25"


def describe(server: Server) -> dict[str, Any]:
    """The server's tools as `tools/list` shows them, plus schema problems per dialect."""
    tools = []
    for entry in server.tools.values():
        listing = dict(entry.listing(_LISTING_VERSION))
        schema = listing.get("inputSchema") or entry.tool.params_json_schema
        problems = {
            dialect: [str(problem) for problem in schema_problems(schema, dialect)]
            for dialect in DIALECTS
        }
        tools.append({**listing, "problems": problems})
    info: dict[str, Any] = dict(server.server_info)
    if server.instructions:
        info["instructions"] = server.instructions
    return {"server": info, "tools": tools}


def inspect_server(server: Server, *, as_json: bool = False) -> str:
    """Readable (or JSON) report of a server's tools."""
    data = describe(server)
    if as_json:
        return json.dumps(data, indent=2, ensure_ascii=False)
    header = f"{server.name} {server.version or ''}".rstrip()
    return render_tools(header, data["tools"])


def render_tools(header: str, tools: list[dict[str, Any]]) -> str:
    """Tools as listed (wire form, each with its `problems` per dialect), for a person.

    Shared by `toolwire inspect` (a local server) and `toolwire tools` (a remote one).
    """
    count = len(tools)
    lines = [f"{header}: {count} tool{'s' if count != 1 else ''}", ""]
    for tool in tools:
        title = f" ({tool['title']})" if tool.get("title") else ""
        description = (tool.get("description") or "").strip().splitlines()
        lines.append(f"- {tool['name']}{title}" + (f": {description[0]}" if description else ""))
        if tool.get("annotations"):
            hints = ", ".join(f"{key}={value}" for key, value in tool["annotations"].items())
            lines.append(f"    annotations: {hints}")
        lines.append(f"    input:  {json.dumps(tool.get('inputSchema', {}), ensure_ascii=False)}")
        if "outputSchema" in tool:
            lines.append(f"    output: {json.dumps(tool['outputSchema'], ensure_ascii=False)}")
        clean = [dialect for dialect, found in tool["problems"].items() if not found]
        for dialect, problems in tool["problems"].items():
            lines.extend(f"    warning [{dialect}] {problem}" for problem in problems)
        if clean:
            lines.append(f"    accepted as is by: {', '.join(clean)}")
        lines.append("")
    return "\n".join(lines).rstrip()
