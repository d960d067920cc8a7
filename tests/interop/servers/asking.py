"""Tools that ask the client something: elicitation, sampling, roots (both eras).

Each tool reports what it got as text, so the tests can read the outcome from the result.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from toolwire import ClientRequestError, Server, ToolContext

server = Server("asking", version="0.1.0")

PROFILE_FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "default": "Ada"},
        "age": {"type": "integer", "minimum": 0, "default": 36},
        "subscribe": {"type": "boolean", "default": True},
        "color": {"type": "string", "enum": ["red", "green"], "enumNames": ["Red", "Green"]},
        "size": {
            "type": "string",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
        },
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}},
    },
    "required": ["name"],
}


class Contact(BaseModel):
    """A form built from a model."""

    username: str = Field(description="Who you are")
    email: str | None = None
    plan: Literal["free", "pro"] = "free"


def _describe(answer: Any) -> str:
    content = answer.content
    if isinstance(content, BaseModel):
        content = {"model": type(content).__name__, **content.model_dump()}
    return json.dumps({"action": answer.action, "content": content}, sort_keys=True)


@server.tool
async def ask_profile(ctx: ToolContext[Any], message: str) -> str:
    """Ask for a profile with a dict form."""
    try:
        answer = await ctx.elicit(message, PROFILE_FORM, timeout=30)
    except ClientRequestError as error:
        return f"{type(error).__name__}: {error}"
    return _describe(answer)


@server.tool
async def ask_contact(ctx: ToolContext[Any]) -> str:
    """Ask for a contact with a model form."""
    try:
        answer = await ctx.elicit("Who are you?", Contact, key="contact")
    except ClientRequestError as error:
        return f"{type(error).__name__}: {error}"
    return _describe(answer)


FORMATTED_FORM = {
    "type": "object",
    "properties": {
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "seen": {"type": "string", "format": "date-time"},
    },
}


@server.tool
async def ask_formatted(ctx: ToolContext[Any]) -> str:
    """Ask for strings of each format MCP lets a form name."""
    try:
        answer = await ctx.elicit("Where and when?", FORMATTED_FORM, timeout=30)
    except ClientRequestError as error:
        return f"{type(error).__name__}: {error}"
    return _describe(answer)


@server.tool
async def ask_bad_form(ctx: ToolContext[Any], which: str) -> str:
    """Ask with a form outside the elicitation subset (the error text comes back)."""
    forms: dict[str, Any] = {
        "nested": {"type": "object", "properties": {"address": {"type": "object"}}},
        "default": {"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}},
        "enum": {"type": "object", "properties": {"c": {"type": "string", "enum": []}}},
        "root": {"type": "array"},
    }
    try:
        await ctx.elicit("never sent", forms[which])
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return "sent"


@server.tool
async def ask_model(ctx: ToolContext[Any], prompt: str) -> str:
    """Sample the client's model."""
    try:
        reply = await ctx.sample(prompt, max_tokens=50, system_prompt="Be brief.", timeout=30)
    except ClientRequestError as error:
        return f"{type(error).__name__}: {error}"
    return json.dumps(
        {"text": reply.text, "model": reply.model, "role": reply.role, "stop": reply.stop_reason}
    )


@server.tool
async def ask_all(ctx: ToolContext[Any]) -> str:
    """Ask three things at once (one round in the 2026-07-28 era)."""
    name, reply, roots = await asyncio.gather(
        ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}}),
        ctx.sample("Greet", max_tokens=10),
        ctx.list_roots(),
    )
    return json.dumps({"name": name.content, "text": reply.text, "roots": roots})


@server.tool
async def ask_twice(ctx: ToolContext[Any]) -> str:
    """Two rounds: the second question depends on the first answer."""
    first = await ctx.elicit(
        "Step 1", {"type": "object", "properties": {"name": {"type": "string"}}}
    )
    name = (first.content or {}).get("name", "?")
    second = await ctx.elicit(
        f"Step 2, {name}", {"type": "object", "properties": {"color": {"type": "string"}}}
    )
    return f"{name} likes {(second.content or {}).get('color')}"


@server.tool
async def ask_slowly(ctx: ToolContext[Any], seconds: float) -> str:
    """Ask with a short timeout (the client does not answer in time)."""
    try:
        await ctx.elicit("Quick!", {"type": "object", "properties": {}}, timeout=seconds)
    except ClientRequestError as error:
        return f"{type(error).__name__}: {error}"
    return "answered"


if __name__ == "__main__":
    server.run()
