"""What a prompt function returns, turned into the `messages` of a `prompts/get` result. A string, a
`PromptMessage` or its dict form, or a list or tuple of those; a message's content is text, an
Agents SDK output, a `ResourceLink`/`EmbeddedResource` or a checked MCP content block. Anything else
raises `PromptResultError` naming the message and the problem."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ...tools.tool_result import as_output
from ..wire.content import fitted, output_block

__all__ = ["PromptMessage", "PromptResultError", "render_messages"]

Role = Literal["user", "assistant"]
_ROLES = ("user", "assistant")
# MCP content blocks by type, with the fields each one needs.
_REQUIRED: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "resource": ("resource",),
    "resource_link": ("uri", "name"),
}


class PromptResultError(TypeError):
    """A prompt function returned something that is not a prompt (the message says what)."""


@dataclass(frozen=True, slots=True)
class PromptMessage:
    """One message of a prompt.

    Args:
        content: A string, an Agents SDK output, a `ResourceLink` / `EmbeddedResource`, or
            an MCP content block as a dict.
        role: Who says it: "user" (the default) or "assistant".

    Raises:
        PromptResultError: (a TypeError) The role is another one, or the content is none of
            those kinds.
    """

    content: Any
    role: Role = "user"

    def __post_init__(self) -> None:
        """Refuse, where the message is made, what `prompts/get` could never send."""
        if self.role not in _ROLES:
            raise PromptResultError(
                f"PromptMessage: role must be 'user' or 'assistant', not {self.role!r}"
            )
        content = self.content
        if not isinstance(content, str | dict) and as_output(content) is None:
            raise PromptResultError(
                "PromptMessage: content must be a string, a ToolOutput*, a ResourceLink, an "
                "EmbeddedResource or an MCP content block, not "
                f"{type(content).__name__}"
            )


def _block(content: Any, version: str, where: str) -> dict[str, Any]:
    if isinstance(content, str):
        return {"type": "text", "text": content}
    if isinstance(content, dict) and content.get("type") in _REQUIRED:
        missing = [key for key in _REQUIRED[content["type"]] if key not in content]
        if missing:
            raise PromptResultError(
                f"{where}: a {content['type']!r} content block needs {', '.join(missing)}"
            )
        _check_fields(content, where)
        return fitted(content, version)
    output = as_output(content)
    if output is not None:
        return output_block(output, version)
    raise PromptResultError(
        f"{where}: content must be a string, a ToolOutput*, a ResourceLink, an "
        f"EmbeddedResource or an MCP content block, not {type(content).__name__}"
    )


def _check_fields(content: dict[str, Any], where: str) -> None:
    """Refuse a block whose required fields have the wrong type (the client refuses them)."""
    kind = content["type"]
    if kind != "resource":
        for key in _REQUIRED[kind]:
            if not isinstance(content[key], str):
                raise PromptResultError(
                    f"{where}: {key!r} of a {kind!r} content block must be a string, "
                    f"not {type(content[key]).__name__}"
                )
        return
    resource = content["resource"]
    if not (
        isinstance(resource, dict)
        and isinstance(resource.get("uri"), str)
        and (isinstance(resource.get("text"), str) or isinstance(resource.get("blob"), str))
    ):
        raise PromptResultError(
            f"{where}: 'resource' of a 'resource' content block must be an object with a "
            "string 'uri' and a string 'text' or 'blob'"
        )


def _message(item: Any, version: str, where: str) -> dict[str, Any]:
    if isinstance(item, str):
        return {"role": "user", "content": {"type": "text", "text": item}}
    if isinstance(item, PromptMessage):
        role, content = item.role, item.content
    elif isinstance(item, dict) and "role" in item and "content" in item:
        role, content = item["role"], item["content"]
    else:
        raise PromptResultError(
            f"{where} must be a string, a PromptMessage or a dict with 'role' and 'content', "
            f"not {type(item).__name__}"
        )
    if role not in _ROLES:
        raise PromptResultError(f"{where}: role must be 'user' or 'assistant', not {role!r}")
    return {"role": role, "content": _block(content, version, where)}


def render_messages(value: Any, version: str, prompt: str) -> list[dict[str, Any]]:
    """The `messages` for what the prompt `prompt` returned; PromptResultError naming the
    culprit when it is no prompt."""
    if isinstance(value, list | tuple):
        return [
            _message(item, version, f"prompt {prompt!r} message {index}")
            for index, item in enumerate(value)
        ]
    return [_message(value, version, f"prompt {prompt!r} result")]
