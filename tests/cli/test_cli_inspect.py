"""`toolwire inspect`: tools, input/output schemas, annotations, schema problems per dialect."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from _cli import toolwire

OPTIONAL = textwrap.dedent(
    '''
    from toolwire import Server

    server = Server("opt", version="2.0", instructions="Be kind.")

    @server.tool(strict_mode=False, title="Search things", annotations={"readOnlyHint": True})
    def search(query: str, limit: int | None = None) -> list[str]:
        """Search.

        Args:
            query: What to look for.
            limit: At most this many.
        """
        return [query][: limit or 1]
    '''
)


def test_json_output_has_schemas_annotations_and_problems() -> None:
    result = toolwire("inspect", "servers.demo", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["server"]["name"] == "toolwire-demo" and data["server"]["version"] == "0.1.0"
    assert "notebook" in data["server"]["instructions"]
    tools = {tool["name"]: tool for tool in data["tools"]}
    assert set(tools) == {
        "shout",
        "word_stats",
        "swatch",
        "countdown",
        "add_note",
        "list_notes",
        "delete_note",
    }
    assert tools["delete_note"]["annotations"]["destructiveHint"] is True
    assert tools["delete_note"]["annotations"]["readOnlyHint"] is False
    assert tools["shout"]["inputSchema"]["properties"]["text"] == {
        "description": "What to shout.",
        "title": "Text",
        "type": "string",
    }
    assert tools["word_stats"]["outputSchema"]["required"] == ["characters", "words", "lines"]
    assert "ctx" not in tools["countdown"]["inputSchema"]["properties"]
    for tool in tools.values():
        assert set(tool["problems"]) == {"openai-strict", "gemini", "anthropic"}
        assert tool["problems"]["openai-strict"] == []  # strict schemas by default
        assert any("additionalProperties" in p for p in tool["problems"]["gemini"])


def test_optional_parameters_are_flagged_for_the_dialects_that_reject_them(
    tmp_path: Path,
) -> None:
    module = tmp_path / "opt.py"
    module.write_text(OPTIONAL)
    data = json.loads(toolwire("inspect", str(module), "--json").stdout)
    (tool,) = data["tools"]
    assert tool["title"] == "Search things"
    gemini = tool["problems"]["gemini"]
    assert any(p.startswith("properties.limit") and "null" in p for p in gemini), gemini
    assert tool["problems"]["openai-strict"], "a non-strict schema must be flagged for strict"


def test_human_output_is_readable(tmp_path: Path) -> None:
    module = tmp_path / "opt.py"
    module.write_text(OPTIONAL)
    result = toolwire("inspect", str(module))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "opt 2.0: 1 tool"
    assert lines[2] == "- search (Search things): Search."
    assert lines[3] == "    annotations: readOnlyHint=True"
    assert lines[4].startswith('    input:  {"properties": {"query":')
    assert any(line.startswith("    warning [gemini] properties.limit") for line in lines)
    demo = toolwire("inspect", "servers/demo/server.py").stdout
    assert "- shout: Return the text in upper case." in demo
    assert "    accepted as is by: openai-strict, anthropic" in demo
    assert '    output: {"description": "Counts for a piece of text."' in demo
