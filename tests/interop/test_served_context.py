"""The `whoami` tool of docs/server.md served for real: `ctx.context` reaches it over stdio, from a
`context=` value, a sync or async `context_factory`, or the lifespan; and tools named with
`name=`/`description=` (or the SDK's `*_override`) are listed under those names.

The server (servers/whoami.py) holds the documented function verbatim; the first test keeps
the two identical, so docs/server.md shows code that is known to work when served.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import anyio
import pytest
from tests.interop._support import ROOT, SERVERS
from tests.transports._proc import INIT, call, exchange, frame, spawn

pytestmark = pytest.mark.anyio

WHOAMI = SERVERS / "whoami.py"
CONTEXTS = ["value", "factory", "async-factory", "lifespan"]
LISTED = {
    "whoami": "Greet the current user.",
    "shout": "Greet the current user loudly.",
    "whisper": "Greet the current user softly.",
    "wave": "Wave at the current user.",
}
_FUNCTION = re.compile(
    r"^@function_tool\nasync def whoami\(.*?\n    return f\"\{greeting\}, .*?\n", re.S | re.M
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_served_whoami_is_the_documented_one_verbatim() -> None:
    readme = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    served = WHOAMI.read_text(encoding="utf-8")
    in_readme = _FUNCTION.search(readme)
    in_server = _FUNCTION.search(served)
    assert in_readme is not None, "docs/server.md no longer shows the whoami tool"
    assert in_server is not None
    assert in_server.group(0) == in_readme.group(0)
    assert "from toolwire import function_tool, ToolContext\n" in readme
    assert "\nfrom toolwire import function_tool, ToolContext\n" in served


def _params(context: str, launcher: str = "script") -> Any:
    from mcp import StdioServerParameters

    args = [str(WHOAMI)] if launcher == "script" else ["-m", "toolwire", "run", str(WHOAMI)]
    return StdioServerParameters(
        command=sys.executable,
        args=args,
        cwd=str(ROOT),
        env={"WHOAMI_CONTEXT": context, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"},
    )


def _text(result: Any) -> str:
    assert result.is_error is False, result
    assert len(result.content) == 1, result.content
    return str(result.content[0].text)


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_whoami_answers_the_mcp_client(mode: str, context: str) -> None:
    from mcp import Client

    with anyio.fail_after(60):
        async with Client(_params(context), mode=mode) as client:
            assert _text(await client.call_tool("whoami", {"greeting": "hello"})) == "hello, ada"
            # A sync tool from @server.tool(name=...) and one from add_tool(function_tool(..))
            assert _text(await client.call_tool("shout", {"greeting": "hi"})) == "HI, ADA!"
            assert _text(await client.call_tool("wave", {})) == "*waves at ada*"


@pytest.mark.parametrize("launcher", ["script", "cli"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_name_and_description_in_both_spellings_are_listed(mode: str, launcher: str) -> None:
    from mcp import Client

    with anyio.fail_after(60):
        async with Client(_params("value", launcher), mode=mode) as client:
            tools = (await client.list_tools()).tools
            assert {tool.name: tool.description for tool in tools} == LISTED
            assert _text(await client.call_tool("whisper", {"greeting": "HEY"})) == "hey, ada..."


@pytest.mark.parametrize("context", CONTEXTS)
def test_whoami_over_a_raw_exchange(context: str) -> None:
    """The same, byte level: what a client without an SDK sees."""
    proc = spawn([sys.executable, str(WHOAMI)], WHOAMI_CONTEXT=context)
    listing = frame({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    messages, err, code = exchange(
        proc, [frame(INIT), listing, call(3, "whoami", {"greeting": "hello"})]
    )
    assert code == 0, err
    by_id = {message["id"]: message for message in messages}
    names = [tool["name"] for tool in by_id[2]["result"]["tools"]]
    assert names == list(LISTED)
    assert by_id[3]["result"] == {
        "content": [{"type": "text", "text": "hello, ada"}],
        "isError": False,
    }
    assert json.dumps(by_id[3]).count("ada") == 1
