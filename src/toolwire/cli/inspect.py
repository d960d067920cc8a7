"""`toolwire inspect`: what a server publishes, and what each client dialect would reject."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..schema.problems import DIALECTS, schema_problems

if TYPE_CHECKING:
    from ..server import Server


def describe(server: Server) -> dict[str, Any]:
    """The server's tools as data, with schema problems per dialect."""
    tools = []
    for entry in server.tools.values():
        listing = entry.listing("2025-11-25")
        problems = {
            dialect: [str(p) for p in schema_problems(entry.tool.params_json_schema, dialect)]
            for dialect in DIALECTS
        }
        tools.append({**listing, "problems": problems})
    return {"server": server.server_info, "tools": tools}


def inspect_server(server: Server, *, as_json: bool = False) -> str:
    """Readable (or JSON) report of a server's tools."""
    data = describe(server)
    if as_json:
        return json.dumps(data, indent=2, ensure_ascii=False)
    lines = [f"{server.name} {server.version or ''}".rstrip(), f"{len(data['tools'])} tools", ""]
    for tool in data["tools"]:
        lines.append(f"- {tool['name']}: {tool.get('description', '')}".rstrip(": "))
        if tool.get("annotations"):
            hints = ", ".join(f"{k}={v}" for k, v in tool["annotations"].items())
            lines.append(f"    annotations: {hints}")
        lines.append(f"    input:  {json.dumps(tool['inputSchema'], ensure_ascii=False)}")
        if "outputSchema" in tool:
            lines.append(f"    output: {json.dumps(tool['outputSchema'], ensure_ascii=False)}")
        for dialect, problems in tool["problems"].items():
            for problem in problems:
                lines.append(f"    warning [{dialect}] {problem}")
        lines.append("")
    return "\n".join(lines).rstrip()
