"""`import toolwire` and the stdio start-up path stay light: no heavy package is imported."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = {
    "mcp",
    "mcp_types",
    "starlette",
    "uvicorn",
    "httpx",
    "httpx2",
    "openai",
    "agents",
    "fastmcp",
    "redis",
}

PROBE = """
import json, sys
import toolwire
stage1 = sorted({m.split('.')[0] for m in sys.modules})
from toolwire import Server, function_tool
server = Server("probe")

@server.tool
def add(a: int, b: int = 2) -> int:
    '''Add two integers.

    Args:
        a: first
        b: second
    '''
    return a + b

import toolwire.transports.stdio.stdio, toolwire.protocol.session.session, toolwire.cli
stage2 = sorted({m.split('.')[0] for m in sys.modules})
print(json.dumps([stage1, stage2]))
"""


def test_import_and_stdio_path_load_no_heavy_package() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    after_import, after_server = json.loads(out)
    assert HEAVY.isdisjoint(after_import), HEAVY & set(after_import)
    assert HEAVY.isdisjoint(after_server), HEAVY & set(after_server)
    assert "pydantic" not in after_import  # `import toolwire` alone is nearly free
    assert "griffe" not in after_import


TOOL_PROBE = '''
import asyncio, json, sys
from toolwire import ToolContext, function_tool

@function_tool
def plain(a: int, b: str = "x") -> str:
    """Join two values."""
    return f"{a}{b}"

@function_tool
async def shout(text: str) -> str:
    return text.upper()

after_decorate = sorted({m.split('.')[0] for m in sys.modules})
ctx = ToolContext(None, tool_name="plain", tool_call_id="c", tool_arguments="")
results = [
    asyncio.run(plain.on_invoke_tool(ctx, '{"a": 1}')),
    asyncio.run(shout.on_invoke_tool(ctx, '{"text": "hi"}')),
]
after_invoke = sorted({m.split('.')[0] for m in sys.modules})
print(json.dumps([after_decorate, after_invoke, results]))
'''


def test_decorating_and_invoking_tools_load_no_heavy_package() -> None:
    out = subprocess.run(
        [sys.executable, "-c", TOOL_PROBE], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    after_decorate, after_invoke, results = json.loads(out)
    assert results == ["1x", "HI"]
    assert HEAVY.isdisjoint(after_decorate), HEAVY & set(after_decorate)
    assert HEAVY.isdisjoint(after_invoke), HEAVY & set(after_invoke)
    assert "griffe" not in after_invoke  # a summary-only docstring needs no docstring parser
    assert "pydantic" in after_invoke  # the model exists once a call validated arguments


STARTUP_PROBE = '''
import sys
from toolwire import Server

server = Server("probe")

@server.tool(annotations={"readOnlyHint": True})
def add(a: int, b: int = 2) -> int:
    """Add two integers."""
    return a + b

@server.tool
def tags(names: list[str], mode: str | None = None) -> dict[str, float]:
    """Weigh tags."""
    return {name: 1.0 for name in names}

original = Server.tools_listed

def report_then_warm_up(self):
    # Called once the first listing is served, just before the warm-up thread starts:
    # what is loaded now is what serving initialize and tools/list needed. (Reporting after
    # the listing raced the warm-up thread's first imports.)
    loaded = sorted({m.split(".")[0] for m in sys.modules})
    sys.stderr.write("LOADED " + " ".join(loaded) + "\\n")
    # Elicitation's email and URI patterns take tens of milliseconds to compile: not at start.
    from toolwire.schema import elicitation
    compiled = elicitation._email.cache_info().currsize + elicitation._uri.cache_info().currsize
    sys.stderr.write(f"FORM_PATTERNS {compiled}\\n")
    original(self)

Server.tools_listed = report_then_warm_up
server.run()
'''

HANDSHAKE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}\n'
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
)


def test_serving_the_first_tools_list_loads_no_pydantic() -> None:
    """Start-up path: decorate simple tools, handshake, list -- pydantic and griffe wait until
    a call needs them (the warm-up thread loads them right after the listing)."""
    done = subprocess.run(
        [sys.executable, "-c", STARTUP_PROBE],
        input=HANDSHAKE,
        capture_output=True,
        timeout=60,
        check=True,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, 2]
    listed = {tool["name"]: tool for tool in replies[1]["result"]["tools"]}
    assert listed["add"]["outputSchema"]["properties"]["result"] == {"type": "integer"}
    # An object-rooted result schema is published as it is (no {"result": ...} wrapping).
    assert listed["tags"]["outputSchema"] == {
        "additionalProperties": {"type": "number"},
        "type": "object",
    }
    report = [line for line in done.stderr.decode().splitlines() if line.startswith("LOADED ")]
    assert len(report) == 1, done.stderr.decode()
    loaded = set(report[0].split()[1:])
    assert "toolwire" in loaded
    for heavy in ("pydantic", "pydantic_core", "griffe", "annotated_types", *HEAVY):
        assert heavy not in loaded, heavy
    assert "FORM_PATTERNS 0" in done.stderr.decode().splitlines()


HTTP_PROBE = """
import json, sys
from toolwire import Server

server = Server("probe")

@server.tool
def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b

apps = [server.http_app(), server.http_app(stateless=True), server.sse_app()]
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))
"""


def test_the_server_side_never_loads_mcp_or_redis() -> None:
    """Building the HTTP apps loads starlette, but never the `mcp` package (the client side's
    alone) nor redis-py (only a Redis backplane needs it)."""
    out = subprocess.run(
        [sys.executable, "-c", HTTP_PROBE], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    loaded = set(json.loads(out))
    assert "starlette" in loaded  # the probe did build the apps
    assert {"mcp", "mcp_types", "redis", "agents", "fastmcp"}.isdisjoint(loaded), loaded


CLI_PROBE = """
import json, sys
from toolwire import cli
args = cli._parse(["run", "server.py"])
print(json.dumps([args.host, sorted(m for m in sys.modules if m.startswith("toolwire."))]))
"""


def test_parsing_a_stdio_run_loads_no_http_or_rendering_module() -> None:
    """`toolwire run server.py` (stdio) parses its options without the HTTP checks (the default
    host is not checked as a typed value) and without the remote commands' rendering."""
    out = subprocess.run(
        [sys.executable, "-c", CLI_PROBE], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    host, loaded = json.loads(out)
    assert host is None  # `toolwire run` serves 127.0.0.1 unless told
    assert not [name for name in loaded if name.startswith("toolwire.transports.http")], loaded
    assert "toolwire.cli._render" not in loaded
