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
        # Strict schemas by default; until 2026-11-23 every tool also carried a Gemini warning
        # about additionalProperties, which Gemini's JSON Schema path accepts.
        assert tool["problems"] == {"openai-strict": [], "gemini": [], "anthropic": []}


def test_a_non_strict_tool_is_flagged_for_openai_strict_only(tmp_path: Path) -> None:
    module = tmp_path / "opt.py"
    module.write_text(OPTIONAL)
    data = json.loads(toolwire("inspect", str(module), "--json").stdout)
    (tool,) = data["tools"]
    assert tool["title"] == "Search things"
    assert tool["problems"]["openai-strict"] == [
        '(root): objects need "additionalProperties": false; serve the tool in strict mode '
        "(toolwire's default: drop strict_mode=False) and use a model with fixed fields instead "
        "of dict[str, X]",
        "(root): every property must be required; missing from required: limit; serve the tool "
        "in strict mode (toolwire's default: drop strict_mode=False), which requires them all "
        "and makes optional ones nullable",
    ]
    # `limit: int | None = None` was a Gemini warning until 2026-11-23 (anyOf with null).
    assert tool["problems"]["gemini"] == []
    assert tool["problems"]["anthropic"] == []


def test_human_output_is_readable(tmp_path: Path) -> None:
    module = tmp_path / "opt.py"
    module.write_text(OPTIONAL)
    result = toolwire("inspect", str(module))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "opt 2.0: 1 tool, 0 resources, 0 resource templates, 0 prompts"
    assert lines[2] == "- search (Search things): Search."
    assert lines[3] == "    annotations: readOnlyHint=True"
    assert lines[4].startswith('    input:  {"properties": {"query":')
    assert lines[-3].startswith(
        '    warning [openai-strict] (root): objects need "additionalProperties": false;'
    )
    assert lines[-2].startswith(
        "    warning [openai-strict] (root): every property must be required; missing from "
        "required: limit;"
    )
    assert lines[-1] == "    accepted as is by: gemini, anthropic"


def test_demo_server_default_output_has_no_warnings() -> None:
    result = toolwire("inspect", "servers/demo/server.py")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == ("toolwire-demo 0.1.0: 7 tools, 1 resource, 1 resource template, 1 prompt")
    tools = [line for line in lines[: lines.index("Resources:")] if line.startswith("- ")]
    assert tools == [
        "- shout: Return the text in upper case.",
        "- word_stats: Count characters, words and lines of a text.",
        "- swatch: Draw a 16x16 colour swatch as a PNG image.",
        "- countdown: Count down slowly, reporting progress at each step.",
        "- add_note: Add a note, or replace the note with the same title.",
        "- list_notes: List every note by title.",
        "- delete_note: Delete a note for good.",
    ]
    assert not [line for line in lines if "warning" in line]
    accepted = [line for line in lines if line.startswith("    accepted as is by: ")]
    assert accepted == ["    accepted as is by: openai-strict, gemini, anthropic"] * len(tools)
    assert any(line.startswith('    output: {"description": "Counts for a piece') for line in lines)
    # What else the server publishes, as a client's resources/list, resources/templates/list
    # and prompts/list would show it.
    assert lines[lines.index("Resources:") :] == [
        "Resources:",
        "- index <notes://index> [text/plain]: The titles of every note, one per line.",
        "",
        "Resource templates:",
        "- note <notes://{title}> [text/plain]: One note's text.",
        "",
        "Prompts:",
        "- summarise(title, style?) (Summarise a note): Ask the model to summarise one note.",
    ]


def test_json_lists_resources_templates_and_prompts() -> None:
    data = json.loads(toolwire("inspect", "servers/demo/server.py", "--json").stdout)
    assert data["resources"] == [
        {
            "uri": "notes://index",
            "name": "index",
            "description": "The titles of every note, one per line.",
            "mimeType": "text/plain",
        }
    ]
    assert [entry["uriTemplate"] for entry in data["resourceTemplates"]] == ["notes://{title}"]
    (prompt,) = data["prompts"]
    assert prompt["name"] == "summarise" and prompt["title"] == "Summarise a note"
    assert [(arg["name"], arg["required"]) for arg in prompt["arguments"]] == [
        ("title", True),
        ("style", False),
    ]
    assert "listingErrors" not in data


DIRECTORY = textwrap.dedent(
    """
    from pathlib import Path
    from toolwire import Server

    server = Server("docs")
    server.add_directory_resources(Path(__file__).parent / "docs", uri_prefix="docs://")
    """
)


def test_directory_resources_are_listed_file_by_file(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n")
    (tmp_path / "docs" / "b.txt").write_text("b\n")
    module = tmp_path / "docs_server.py"
    module.write_text(DIRECTORY)
    result = toolwire("inspect", str(module), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert sorted(entry["uri"] for entry in data["resources"]) == ["docs://a.md", "docs://b.txt"]
    assert len(data["resourceTemplates"]) == 1
