"""The fixture tools that the handshake-era server scenarios of the conformance harness call.

Names, arguments and observable behaviour follow the harness's contract (scenario sources of
`@modelcontextprotocol/conformance` 0.1.16); everything is built with toolwire's public API:
`@server.tool`, `ToolContext.report_progress` / `info` / `elicit` / `sample`, the
`ToolOutput*` results and a hand-built `FunctionTool` for the literal 2020-12 schema.

Audio is a `ToolOutputFileContent` holding an `audio/*` data URL, which toolwire sends as an
MCP `audio` block; `test_reconnection` ends its SSE response with `ctx.close_sse_stream()`.
Embedded resources are `toolwire.EmbeddedResource` results: text under the fixture's own
`test://` URIs, as the reference fixture sends them.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

from toolwire import (
    EmbeddedResource,
    FunctionTool,
    Server,
    ToolContext,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
)

# A 1x1 PNG and a WAV file holding one silent sample: the smallest valid media of each kind.
PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
WAV_BASE64 = base64.b64encode(
    b"RIFF"
    + (38).to_bytes(4, "little")
    + b"WAVEfmt "
    + (16).to_bytes(4, "little")
    + (1).to_bytes(2, "little")  # PCM
    + (1).to_bytes(2, "little")  # mono
    + (8000).to_bytes(4, "little")
    + (16000).to_bytes(4, "little")
    + (2).to_bytes(2, "little")
    + (16).to_bytes(2, "little")
    + b"data"
    + (2).to_bytes(4, "little")
    + b"\x00\x00"
).decode()

# Seconds between the steps of the logging and progress tools: long enough for a client to
# see separate notifications, short enough for a suite of dozens of scenarios.
STEP_PAUSE = 0.05
# How long test_reconnection runs on after ending its stream: the client's time to resume.
RECONNECT_PAUSE = 0.2

# SEP-1034: every primitive type with a default the client should pre-fill.
DEFAULTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Your name", "default": "John Doe"},
        "age": {"type": "integer", "description": "Your age", "default": 30},
        "score": {"type": "number", "description": "Your score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "Account status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Whether verified", "default": True},
    },
}


def _titled(prefix: str, titles: list[str]) -> list[dict[str, str]]:
    return [{"const": f"{prefix}{n}", "title": title} for n, title in enumerate(titles, 1)]


# SEP-1330: the five ways an elicitation form may spell a choice.
ENUMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "description": "Pick one",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "description": "Pick one (titled)",
            "oneOf": _titled("value", ["First", "Second", "Third"]),
        },
        "legacyEnum": {
            "type": "string",
            "description": "Pick one (enumNames)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option 1", "Option 2", "Option 3"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Pick several",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Pick several (titled)",
            "items": {"anyOf": _titled("value", ["First", "Second", "Third"])},
        },
    },
}

USER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "Your user name"},
        "email": {"type": "string", "description": "Your e-mail address"},
    },
    "required": ["username", "email"],
}

# Served as written. The 0.1.16 harness checks that `$schema`, `$defs` and
# `additionalProperties` reach the client untouched; the alpha harness (SEP-2106) also looks
# for `$anchor` inside `$defs`, `allOf`/`anyOf` and `if`/`then`/`else`. One schema serves both.
SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


def _png() -> ToolOutputImage:
    return ToolOutputImage(image_url="data:image/png;base64," + PNG_BASE64)


def _file(filename: str, mime: str, data: bytes) -> ToolOutputFileContent:
    encoded = base64.b64encode(data).decode()
    return ToolOutputFileContent(file_data=f"data:{mime};base64,{encoded}", filename=filename)


async def _echo_2020_12(ctx: ToolContext[Any], arguments: str) -> str:
    return "json_schema_2020_12_tool got " + json.dumps(json.loads(arguments or "{}"))


def add_handshake_tools(server: Server) -> None:
    """Publish every tool the 0.1.16 server scenarios call on `server`."""

    @server.tool
    def test_simple_text() -> str:
        """Answers with one text block."""
        return "This is a simple text response for testing."

    @server.tool
    def test_image_content() -> ToolOutputImage:
        """Answers with one PNG image block."""
        return _png()

    @server.tool
    def test_audio_content() -> ToolOutputFileContent:
        """Answers with one WAV audio block."""
        return _file("test.wav", "audio/wav", base64.b64decode(WAV_BASE64))

    @server.tool
    def test_embedded_resource() -> EmbeddedResource:
        """Answers with one embedded text resource."""
        return EmbeddedResource(
            "test://embedded-resource",
            text="This is an embedded resource content.",
            mime_type="text/plain",
        )

    @server.tool
    def test_multiple_content_types() -> list[Any]:
        """Answers with text, an image and an embedded JSON resource, in that order."""
        payload = json.dumps({"test": "data", "value": 123})
        return [
            ToolOutputText(text="Multiple content types test:"),
            _png(),
            EmbeddedResource(
                "test://mixed-content-resource", text=payload, mime_type="application/json"
            ),
        ]

    @server.tool
    async def test_tool_with_logging(ctx: ToolContext[Any]) -> str:
        """Sends three info log messages while it runs."""
        steps = ("Tool execution started", "Tool processing data", "Tool execution completed")
        for n, text in enumerate(steps):
            if n:
                await asyncio.sleep(STEP_PAUSE)
            await ctx.info(text)
        return "Tool with logging executed successfully"

    @server.tool
    async def test_tool_with_progress(ctx: ToolContext[Any]) -> str:
        """Reports progress 0, 50 and 100 out of 100."""
        for n, done in enumerate((0, 50, 100)):
            if n:
                await asyncio.sleep(STEP_PAUSE)
            await ctx.report_progress(done, 100, f"{done}% done")
        return "Progress reported: 0, 50, 100 of 100"

    @server.tool
    def test_error_handling() -> str:
        """Always fails, so the result carries isError."""
        raise RuntimeError("test_error_handling fails on purpose")

    @server.tool
    async def test_sampling(ctx: ToolContext[Any], prompt: str) -> str:
        """Asks the client's model to answer `prompt` (sampling/createMessage).

        Args:
            prompt: What to ask the model.
        """
        reply = await ctx.sample(prompt, max_tokens=100)
        return f"LLM response: {reply.text}"

    @server.tool
    async def test_elicitation(ctx: ToolContext[Any], message: str) -> str:
        """Asks the user for a user name and an e-mail address (elicitation/create).

        Args:
            message: What to tell the user.
        """
        answer = await ctx.elicit(message, USER_SCHEMA)
        return f"User response: action={answer.action}, content={json.dumps(answer.content)}"

    @server.tool
    async def test_elicitation_sep1034_defaults(ctx: ToolContext[Any]) -> str:
        """Asks for a form whose every field has a default (SEP-1034)."""
        answer = await ctx.elicit("Please check these defaults", DEFAULTS_SCHEMA)
        return f"Elicitation: action={answer.action}, content={json.dumps(answer.content)}"

    @server.tool
    async def test_elicitation_sep1330_enums(ctx: ToolContext[Any]) -> str:
        """Asks for a form using each enum spelling of SEP-1330."""
        answer = await ctx.elicit("Please pick options", ENUMS_SCHEMA)
        return f"Elicitation: action={answer.action}, content={json.dumps(answer.content)}"

    @server.tool
    async def test_reconnection(ctx: ToolContext[Any]) -> str:
        """Ends its POST's SSE stream mid-call, then answers (SEP-1699 polling)."""
        await ctx.close_sse_stream()
        await asyncio.sleep(RECONNECT_PAUSE)
        return "Reconnection test completed successfully."

    server.add_tool(
        FunctionTool(
            name="json_schema_2020_12_tool",
            description="Takes arguments described by a JSON Schema 2020-12 document.",
            params_json_schema=SCHEMA_2020_12,
            on_invoke_tool=_echo_2020_12,
            strict_json_schema=False,
        )
    )
