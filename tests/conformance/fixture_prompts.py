"""The fixture prompts and completion the conformance harness's server scenarios call.

Names and shapes follow the scenario sources of `@modelcontextprotocol/conformance` 0.1.16
and 0.2.0-alpha.12 (prompts-*, completion-complete, input-required-result-non-tool-request, and the
`test_trigger_prompt_change` hook of server-stateless),
built with toolwire's public API only: `@server.prompt`, `PromptMessage`,
`EmbeddedResource`, `ToolOutputImage`, per-argument completers, and a `ToolContext` whose
`ctx.elicit` becomes an input-required result in the 2026-07-28 era.
"""

from __future__ import annotations

from typing import Any

from toolwire import EmbeddedResource, PromptMessage, Server, ToolContext, ToolOutputImage

from .handshake_tools import PNG_BASE64

CONTEXT_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {"context": {"type": "string"}},
    "required": ["context"],
}


def add_prompts(server: Server) -> None:
    """Publish every prompt the harness's scenarios get on `server`."""

    @server.prompt
    def test_simple_prompt() -> str:
        """A simple prompt without arguments."""
        return "This is a simple prompt for testing."

    @server.prompt(completers={"arg1": ["test", "testValue1", "other"]})
    def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
        """A prompt with required arguments.

        Args:
            arg1: First test argument.
            arg2: Second test argument.
        """
        return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"

    @server.prompt
    def test_prompt_with_embedded_resource(resourceUri: str) -> list[PromptMessage]:
        """A prompt that includes an embedded resource.

        Args:
            resourceUri: URI of the resource to embed.
        """
        return [
            PromptMessage(
                EmbeddedResource(
                    resourceUri,
                    text="Embedded resource content for testing.",
                    mime_type="text/plain",
                )
            ),
            PromptMessage("Please process the embedded resource above."),
        ]

    @server.prompt
    def test_prompt_with_image() -> list[PromptMessage]:
        """A prompt that includes image content."""
        return [
            PromptMessage(ToolOutputImage(image_url=f"data:image/png;base64,{PNG_BASE64}")),
            PromptMessage("Please analyze the image above."),
        ]

    @server.prompt
    async def test_input_required_result_prompt(ctx: ToolContext[Any]) -> str:
        """A prompt that asks the user for context before it renders."""
        answer = await ctx.elicit(
            "What context should the prompt use?", CONTEXT_FORM, key="user_context"
        )
        context = answer.content.get("context") if isinstance(answer.content, dict) else None
        return f"Use this context: {context}"

    @server.tool
    def test_trigger_prompt_change() -> str:
        """Adds a prompt and removes it again, so list-changed notifications go out."""
        server.add_prompt(_dynamic_prompt, name="test_dynamic_prompt")
        server.remove_prompt("test_dynamic_prompt")
        return "prompt list changed"


def _dynamic_prompt() -> str:
    """Exists only for a moment, inside test_trigger_prompt_change."""
    return "dynamic"
