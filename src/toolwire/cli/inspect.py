"""`toolwire inspect`: what a server publishes (tools, resources, resource templates, prompts),
and what each client dialect would reject in its tools' schemas."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..schema.problems import DIALECTS, schema_problems
from ._render import json_text, visible

if TYPE_CHECKING:
    from ..server import Server

__all__ = ["describe", "inspect_server", "render_tools"]

_LISTING_VERSION = "2025-11-25"


def describe(server: Server) -> dict[str, Any]:
    """Everything the server lists, as its `*/list` answers show it, plus schema problems
    per dialect for each tool.

    Returns:
        `server` (its info and instructions), `tools`, `resources`, `resourceTemplates` and
        `prompts`; `listingErrors` too when a template's own listing of resources failed.
    """
    tools = []
    for entry in server.tools.values():
        schema = entry.tool.params_json_schema
        problems = {
            dialect: [str(problem) for problem in schema_problems(schema, dialect)]
            for dialect in DIALECTS
        }
        tools.append({**entry.listing(_LISTING_VERSION), "problems": problems})
    info: dict[str, Any] = dict(server.server_info)
    if server.instructions:
        info["instructions"] = server.instructions
    registry = server.resource_registry
    resources = [entry.listing(_LISTING_VERSION) for entry in registry.listings()]
    errors: list[str] = []
    for template in registry.templates.values():
        if template.lister is None:
            continue
        try:
            resources.extend(entry.listing(_LISTING_VERSION) for entry in template.lister())
        except Exception as error:  # a directory that went away: say so, list the rest
            errors.append(f"listing the resources of {template.uri_template} failed: {error}")
    data: dict[str, Any] = {
        "server": info,
        "tools": tools,
        "resources": resources,
        "resourceTemplates": [
            template.listing(_LISTING_VERSION) for template in registry.templates.values()
        ],
        "prompts": [prompt.listing(_LISTING_VERSION) for prompt in server.prompts.values()],
    }
    if errors:
        data["listingErrors"] = errors
    return data


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def inspect_server(server: Server, *, as_json: bool = False) -> str:
    """Readable (or JSON) report of what a server publishes, unable to drive a terminal."""
    data = describe(server)
    if as_json:
        return json_text(data)
    header = f"{server.name} {server.version or ''}".rstrip()
    counts = [
        _count(len(data[key]), noun)
        for key, noun in (
            ("tools", "tool"),
            ("resources", "resource"),
            ("resourceTemplates", "resource template"),
            ("prompts", "prompt"),
        )
    ]
    lines = [f"{header}: {', '.join(counts)}", "", *map(_tool_lines, data["tools"])]
    for title, key, render in (
        ("Resources", "resources", _resource_line),
        ("Resource templates", "resourceTemplates", _resource_line),
        ("Prompts", "prompts", _prompt_line),
    ):
        if data[key]:
            lines += [f"{title}:", *(render(entry) for entry in data[key]), ""]
    lines += [f"warning: {error}" for error in data.get("listingErrors", [])]
    return visible("\n".join(lines).rstrip())


def _summary(entry: dict[str, Any], between: str = "") -> str:
    """` (title)`, `between`, `: first line of the description`, as far as the entry has them."""
    title = f" ({entry['title']})" if entry.get("title") else ""
    description = (entry.get("description") or "").strip().splitlines()
    return title + between + (f": {description[0]}" if description else "")


def _resource_line(entry: dict[str, Any]) -> str:
    where = entry.get("uri") or entry.get("uriTemplate") or ""
    kind = f" [{entry['mimeType']}]" if entry.get("mimeType") else ""
    return f"- {entry.get('name', '')}{_summary(entry, f' <{where}>{kind}')}"


def _prompt_line(entry: dict[str, Any]) -> str:
    arguments = ", ".join(
        argument["name"] + ("" if argument.get("required") else "?")
        for argument in entry.get("arguments", [])
    )
    return f"- {entry['name']}({arguments}){_summary(entry)}"


def _tool_lines(tool: dict[str, Any]) -> str:
    """One tool (wire form with `problems`, and `client_advice` when listed remotely)."""
    lines = [f"- {tool['name']}{_summary(tool)}"]
    if tool.get("annotations"):
        hints = ", ".join(f"{key}={value}" for key, value in tool["annotations"].items())
        lines.append(f"    annotations: {hints}")
    lines.append(f"    input:  {json.dumps(tool.get('inputSchema', {}), ensure_ascii=False)}")
    if "outputSchema" in tool:
        lines.append(f"    output: {json.dumps(tool['outputSchema'], ensure_ascii=False)}")
    advice: dict[str, str] = tool.get("client_advice") or {}
    clean = [dialect for dialect, found in tool["problems"].items() if not found]
    for dialect, problems in tool["problems"].items():
        lines.extend(f"    warning [{dialect}] {problem}" for problem in problems)
        if dialect in advice:
            lines.append(f"    for a client [{dialect}]: {advice[dialect]}")
    if clean:
        lines.append(f"    accepted as is by: {', '.join(clean)}")
    return "\n".join(lines) + "\n"


def render_tools(header: str, tools: list[dict[str, Any]]) -> str:
    """Listed tools with their `problems` (and `client_advice`, remotely), for a person."""
    lines = [f"{header}: {_count(len(tools), 'tool')}", ""]
    lines += [_tool_lines(tool) for tool in tools]
    return "\n".join(lines).rstrip()
