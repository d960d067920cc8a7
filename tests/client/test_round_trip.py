"""Round trip: a tool served by toolwire and read back through the adapter is the local tool.

Every tool of the differential corpus (tests/schema/_signatures.py) that toolwire decorates
is served over stdio and read back with `function_tools()`; the adapter's tool must have the
local tool's name, description, argument schema and strictness, and calling it with the
corpus's arguments must give what calling the local tool gives:

- a string result (and every failure text) comes back as the same string;
- a `ToolOutput*` result comes back as the same output;
- any other value comes back as JSON text (MCP carries text, and toolwire's server writes
  the value's JSON), which must decode to the value's JSON form (sets compared as sets);
- where the local tool gives the default failure text for arguments that do not validate,
  the server's own answer names the tool and what was wrong ("Invalid arguments for tool
  'x'...", toolwire's server tells the model which argument to fix);
- results that print a per-call object (a `ToolContext`, with its call id, or an object's
  address) are only checked to be of the same form.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

import pytest
from tests.client._corpus import groups
from tests.client._support import SERVERS, bounded

import toolwire
from toolwire import ToolContext
from toolwire.protocol.wire.content import to_jsonable
from toolwire.tools.outputs import ToolOutputFileContent, ToolOutputImage, ToolOutputText

GROUPS = groups()
OUTPUT_TYPES = (ToolOutputText, ToolOutputImage, ToolOutputFileContent)


def _context(name: str, arguments: str) -> ToolContext[Any]:
    return ToolContext(None, tool_name=name, tool_call_id="call-1", tool_arguments=arguments)


_ADDRESS = re.compile(r" at 0x[0-9a-f]+")
DEFAULT_FAILURE = "An error occurred while running the tool. Please try again."


def _canon(value: Any) -> Any:
    """The JSON form of a value, with sets as sorted lists (their order is the hash seed's)."""
    if isinstance(value, set | frozenset):
        return sorted(_canon(item) for item in value)
    if isinstance(value, dict):
        return {key: _canon(item) for key, item in value.items()}
    return to_jsonable(value)


def _sorted_lists(value: Any) -> Any:
    if isinstance(value, list):
        return sorted(value, key=repr)
    if isinstance(value, dict):
        return {key: _sorted_lists(item) for key, item in value.items()}
    return value


def _same_result(local: Any, remote: Any, name: str) -> bool:
    refused = f"Invalid arguments for tool '{name}'"
    if local == DEFAULT_FAILURE and isinstance(remote, str) and remote.startswith(refused):
        return True
    text = repr(local)
    if " object at 0x" in text:
        return bool(_ADDRESS.sub("", str(remote)) == _ADDRESS.sub("", str(local)))
    if "ToolContext(" in text:
        return isinstance(remote, str) and remote.split("(", 1)[0] == str(local).split("(", 1)[0]
    if isinstance(local, str):
        return bool(remote == local)
    if isinstance(local, OUTPUT_TYPES):
        return isinstance(remote, type(local)) and remote.model_dump() == local.model_dump()
    if isinstance(local, list) and local and all(isinstance(i, OUTPUT_TYPES) for i in local):
        return [i.model_dump() for i in remote] == [i.model_dump() for i in local]
    if local is None:
        return bool(remote == "")
    expected = _canon(local)
    try:
        got = json.loads(remote)
    except (TypeError, ValueError):
        return bool(remote == str(expected))
    if got == expected or _nan_safe(got, expected):
        return True
    return bool(_sorted_lists(got) == _sorted_lists(expected))


def _nan_safe(got: Any, expected: Any) -> bool:
    if isinstance(got, float) and isinstance(expected, float):
        return math.isnan(got) and math.isnan(expected)
    return False


async def _compare(index: int) -> list[str]:
    problems: list[str] = []
    local = {tool.name: (case, tool) for case, tool in GROUPS[index]}
    params = {"command": sys.executable, "args": [str(SERVERS / "corpus.py"), str(index)]}
    async with toolwire.MCPServerStdio(
        params=params, client_session_timeout_seconds=60, name="corpus"
    ) as server:
        plain = {tool.name: tool for tool in await server.function_tools()}
        strict = {
            tool.name: tool for tool in await server.function_tools(convert_schemas_to_strict=True)
        }
        missing = sorted(set(local) - set(plain))
        if missing:
            problems.append(f"not served: {missing}")
        for name, remote_plain in plain.items():
            case, tool = local[name]
            remote = strict[name] if tool.strict_json_schema else remote_plain
            for field in ("name", "description", "params_json_schema", "strict_json_schema"):
                if getattr(remote, field) != getattr(tool, field):
                    problems.append(
                        f"{case.id}: {field}: {getattr(remote, field)!r} != {getattr(tool, field)!r}"
                    )
            calls = {"empty_object": "{}", **case.calls}
            for label, arguments in calls.items():
                want = await tool.on_invoke_tool(_context(name, arguments), arguments)
                got = await remote.on_invoke_tool(_context(name, arguments), arguments)
                if not _same_result(want, got, name):
                    problems.append(f"{case.id}[{label}]: {got!r} != {want!r}")
    return problems


@pytest.mark.parametrize("index", range(len(GROUPS)))
def test_served_tools_read_back_as_the_local_tools(index: int) -> None:
    problems = bounded(lambda: _compare(index), 240)
    assert not problems, "\n".join(problems)


def test_the_corpus_is_all_there() -> None:
    assert sum(len(group) for group in GROUPS) >= 90
