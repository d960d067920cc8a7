"""The conformance fixture behind the legacy HTTP+SSE transport.

The official harness speaks streamable HTTP only (no SSE client in 0.1.16 or 0.2.0-alpha.12),
so this leg replays the scenarios of 0.1.16 (tools, resources, prompts, completion) with the
official `mcp` client over `sse_client`, acting as the harness does (it declares sampling
and elicitation, answers sampling with a `test-model` message and accepts elicitations with
a user name and e-mail) and asserting the harness's pass condition for each scenario.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from tests._listening import free_port
from tests.conformance.harness import serving
from tests.conformance.server import build

pytest.importorskip("mcp")

T = TypeVar("T")
SERVER = Path(__file__).resolve().parent / "server.py"


def _bounded(main: Callable[[], Awaitable[T]], seconds: float = 60) -> T:
    async def run() -> T:
        with anyio.fail_after(seconds):
            return await main()

    return anyio.run(run)


@pytest.mark.timeout(120)
# The harness's 0.1.16 scenarios use logging/setLevel, which mcp 2.3 flags for 2026-07-28.
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
def test_scenarios_over_legacy_sse(tmp_path: Path) -> None:
    from mcp import ClientSession, types
    from mcp.client.sse import sse_client

    asked: dict[str, list[Any]] = {"sampling": [], "elicitation": []}
    logged: list[Any] = []
    progress: list[float] = []

    async def on_sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
        asked["sampling"].append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="This is a test response"),
            model="test-model",
        )

    async def on_elicitation(context: Any, params: types.ElicitRequestParams) -> Any:
        asked["elicitation"].append(params)
        return types.ElicitResult(
            action="accept", content={"username": "testuser", "email": "test@example.com"}
        )

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async def main(url: str) -> None:
        async with (
            sse_client(url) as (read, write),
            ClientSession(
                read,
                write,
                sampling_callback=on_sampling,
                elicitation_callback=on_elicitation,
                logging_callback=on_log,
            ) as session,
        ):
            await session.initialize()
            await session.send_ping()
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(listed) == set(build().tools)
            assert all(tool.description and tool.input_schema for tool in listed.values())
            schema = listed["json_schema_2020_12_tool"].input_schema
            assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
            assert "address" in schema["$defs"] and schema["additionalProperties"] is False

            async def call(name: str, arguments: dict[str, Any] | None = None) -> Any:
                return await session.call_tool(name, arguments or {})

            text = await call("test_simple_text")
            assert text.content[0].type == "text" and text.content[0].text
            image = await call("test_image_content")
            assert image.content[0].type == "image" and image.content[0].mime_type == "image/png"
            audio = await call("test_audio_content")
            assert audio.content[0].type == "audio" and audio.content[0].mime_type == "audio/wav"
            embedded = await call("test_embedded_resource")
            assert embedded.content[0].type == "resource"
            assert embedded.content[0].resource.uri and embedded.content[0].resource.mime_type
            mixed = await call("test_multiple_content_types")
            assert [block.type for block in mixed.content] == ["text", "image", "resource"]
            error = await call("test_error_handling")
            assert error.is_error is True and error.content[0].text

            await session.set_logging_level("debug")
            await call("test_tool_with_logging")
            done = await session.call_tool(
                "test_tool_with_progress", {}, progress_callback=on_progress
            )
            assert not done.is_error

            sampled = await call("test_sampling", {"prompt": "Test prompt for sampling"})
            assert sampled.content[0].text == "LLM response: This is a test response"
            elicited = await call("test_elicitation", {"message": "Please provide your info"})
            assert "testuser" in elicited.content[0].text
            await call("test_elicitation_sep1034_defaults")
            await call("test_elicitation_sep1330_enums")
            reconnected = await call("test_reconnection")
            assert not reconnected.is_error

            # resources-*: list, read text, binary and a template, subscribe and unsubscribe.
            resources = (await session.list_resources()).resources
            assert resources and all(r.uri and r.name for r in resources)
            text_resource = (await session.read_resource("test://static-text")).contents[0]
            assert text_resource.mime_type and getattr(text_resource, "text", "")
            binary = (await session.read_resource("test://static-binary")).contents[0]
            assert binary.mime_type and getattr(binary, "blob", "")
            templated = (await session.read_resource("test://template/123/data")).contents[0]
            assert "123" in getattr(templated, "text", "")
            await session.subscribe_resource("test://watched-resource")
            await session.unsubscribe_resource("test://watched-resource")

            # prompts-*, completion-complete.
            prompts = (await session.list_prompts()).prompts
            assert prompts and all(p.name and p.description for p in prompts)
            simple = await session.get_prompt("test_simple_prompt")
            assert simple.messages and all(m.role and m.content for m in simple.messages)
            with_args = await session.get_prompt(
                "test_prompt_with_arguments", {"arg1": "testValue1", "arg2": "testValue2"}
            )
            dumped = json.dumps([m.model_dump(mode="json") for m in with_args.messages])
            assert "testValue1" in dumped and "testValue2" in dumped
            embedding = await session.get_prompt(
                "test_prompt_with_embedded_resource", {"resourceUri": "test://example-resource"}
            )
            assert any(m.content.type == "resource" for m in embedding.messages)
            pictured = await session.get_prompt("test_prompt_with_image")
            assert any(
                m.content.type == "image" and m.content.data and m.content.mime_type
                for m in pictured.messages
            )
            completed = await session.complete(
                types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                {"name": "arg1", "value": "test"},
            )
            assert completed.completion.values == ["test", "testValue1"]

    port = free_port()
    command = [sys.executable, str(SERVER), "--port", str(port), "--transport", "sse"]
    with serving(command, port, tmp_path / "server.log"):
        _bounded(lambda: main(f"http://127.0.0.1:{port}/sse"))

    assert logged[-3:] == [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    assert progress == [0, 50, 100]
    assert [p.messages[0].content.text for p in asked["sampling"]] == ["Test prompt for sampling"]
    forms = [p.requested_schema["properties"] for p in asked["elicitation"]]
    assert set(forms[0]) == {"username", "email"}
    assert {name: spec["default"] for name, spec in forms[1].items()} == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
    }
    assert set(forms[2]) == {
        "untitledSingle",
        "titledSingle",
        "legacyEnum",
        "untitledMulti",
        "titledMulti",
    }
