"""prompts/list and prompts/get through a real session, in both eras; bad input named."""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest

from toolwire import (
    EmbeddedResource,
    Icon,
    PromptMessage,
    ResourceLink,
    ToolContext,
    ToolOutputImage,
)
from toolwire.errors import UserError
from toolwire.server import Server

from ..harness import SERVER_INFO_KEY, handshake, meta, modern, validate

pytestmark = pytest.mark.anyio
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()


def _server() -> Server:
    server = Server("prompts", version="1.0")

    @server.prompt
    def simple() -> str:
        """A prompt without arguments."""
        return "Hello there."

    @server.prompt(name="review", title="Code review", icons=[Icon("https://x.test/r.png")])
    def review_code(code: str, language: str = "python", strict: bool = False) -> list[Any]:
        """Review some code.

        Args:
            code: The code to review.
            language: Its language.
            strict: Whether to be picky.
        """
        return [
            f"Review this {language} code (strict={strict}):",
            PromptMessage(EmbeddedResource("file:///code", text=code, mime_type="text/plain")),
            PromptMessage("Looks fine.", role="assistant"),
        ]

    @server.prompt
    async def count(n: int) -> PromptMessage:
        """Count.

        Args:
            n: How far.
        """
        return PromptMessage(" ".join(str(i) for i in range(n)))

    @server.prompt
    def picture() -> list[Any]:
        """Show a picture and a link."""
        return [
            PromptMessage(ToolOutputImage(image_url=f"data:image/png;base64,{PNG}")),
            PromptMessage(ResourceLink("test://doc/readme.md", mime_type="text/markdown")),
            {"role": "user", "content": {"type": "text", "text": "as a dict"}},
        ]

    @server.prompt
    def broken() -> Any:
        """Returns nonsense."""
        return 42

    @server.prompt
    def raising() -> str:
        """Fails."""
        raise RuntimeError("secret detail")

    return server


async def test_list_describes_arguments_and_drops_what_old_versions_lack() -> None:
    server = _server()
    async with handshake(server) as peer:
        reply = await peer.request(1, "prompts/list")
    prompts = {p["name"]: p for p in reply["result"]["prompts"]}
    assert list(prompts) == ["simple", "review", "count", "picture", "broken", "raising"]
    validate("prompts/list", "2025-11-25", reply["result"])
    assert prompts["simple"] == {"name": "simple", "description": "A prompt without arguments."}
    assert prompts["review"] == {
        "name": "review",
        "title": "Code review",
        "description": "Review some code.",
        "arguments": [
            {"name": "code", "description": "The code to review.", "required": True},
            {"name": "language", "description": "Its language.", "required": False},
            {"name": "strict", "description": "Whether to be picky.", "required": False},
        ],
        "icons": [{"src": "https://x.test/r.png"}],
    }
    async with handshake(server, "2025-03-26") as peer:
        old = await peer.request(1, "prompts/list")
    review = next(p for p in old["result"]["prompts"] if p["name"] == "review")
    assert "icons" not in review and "title" not in review
    validate("prompts/list", "2025-03-26", old["result"])


async def test_get_renders_messages_of_every_kind() -> None:
    async with handshake(_server()) as peer:
        simple = await peer.request(1, "prompts/get", {"name": "simple"})
        review = await peer.request(
            2, "prompts/get", {"name": "review", "arguments": {"code": "x=1", "strict": "true"}}
        )
        counted = await peer.request(3, "prompts/get", {"name": "count", "arguments": {"n": "3"}})
        pictured = await peer.request(4, "prompts/get", {"name": "picture"})
    assert simple["result"] == {
        "description": "A prompt without arguments.",
        "messages": [{"role": "user", "content": {"type": "text", "text": "Hello there."}}],
    }
    messages = review["result"]["messages"]
    assert messages[0]["content"]["text"] == "Review this python code (strict=True):"
    assert messages[1]["content"] == {
        "type": "resource",
        "resource": {"uri": "file:///code", "mimeType": "text/plain", "text": "x=1"},
    }
    assert messages[2] == {"role": "assistant", "content": {"type": "text", "text": "Looks fine."}}
    assert counted["result"]["messages"][0]["content"]["text"] == "0 1 2"
    assert [m["content"] for m in pictured["result"]["messages"]] == [
        {"type": "image", "data": PNG, "mimeType": "image/png"},
        {
            "type": "resource_link",
            "uri": "test://doc/readme.md",
            "name": "readme.md",
            "mimeType": "text/markdown",
        },
        {"type": "text", "text": "as a dict"},
    ]
    for reply in (simple, review, counted, pictured):
        validate("prompts/get", "2025-11-25", reply["result"])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"name": "nope"}, "Unknown prompt: nope"),
        ({"name": 3}, "Invalid request parameters"),
        ({"name": "review"}, "Missing required argument(s) for prompt 'review': code"),
        (
            {"name": "review", "arguments": {"code": "x", "colour": "red"}},
            "Unknown argument(s) for prompt 'review': colour (it takes: code, language, strict)",
        ),
        (
            {"name": "review", "arguments": {"code": 5}},
            "Argument 'code' of prompt 'review' must be a string, not int",
        ),
        (
            {"name": "count", "arguments": {"n": "many"}},
            "Invalid argument(s) for prompt 'count': 'n': Input should be a valid integer, "
            "unable to parse string as an integer",
        ),
        (
            {"name": "review", "arguments": ["x"]},
            "prompts/get: 'arguments' of prompt 'review' must be an object of strings",
        ),
    ],
)
async def test_bad_requests_are_invalid_params_naming_the_problem(
    params: dict[str, Any], message: str
) -> None:
    async with handshake(_server()) as peer:
        reply = await peer.request(1, "prompts/get", params)
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"] == message


@pytest.mark.parametrize("name", ["broken", "raising"])
async def test_a_failing_prompt_is_an_internal_error_without_its_details(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with handshake(_server()) as peer:
        reply = await peer.request(1, "prompts/get", {"name": name})
    assert reply["error"] == {"code": -32603, "message": f"Error rendering prompt {name!r}"}
    assert "secret" not in str(reply)
    assert name in caplog.text


async def test_modern_results_are_stamped_and_cacheable() -> None:
    async with modern(_server()) as peer:
        listed = await peer.request(1, "prompts/list", {"_meta": meta()})
        got = await peer.request(2, "prompts/get", {"name": "simple", "_meta": meta()})
    assert listed["result"]["ttlMs"] == 0 and listed["result"]["cacheScope"] == "private"
    assert listed["result"]["resultType"] == "complete"
    assert SERVER_INFO_KEY in got["result"]["_meta"]
    validate("prompts/list", "2026-07-28", listed["result"])
    validate("prompts/get", "2026-07-28", got["result"])


async def test_pages_of_one_hundred() -> None:
    server = Server("many")
    for index in range(150):
        server.add_prompt(lambda: "x", name=f"p{index:03}", description="d")
    async with handshake(server) as peer:
        first = await peer.request(1, "prompts/list")
        cursor = first["result"]["nextCursor"]
        second = await peer.request(2, "prompts/list", {"cursor": cursor})
        bad = await peer.request(3, "prompts/list", {"cursor": "nope"})
        not_text = await peer.request(4, "prompts/list", {"cursor": 7})
    assert len(first["result"]["prompts"]) == 100
    assert second["result"]["prompts"][0]["name"] == "p100"
    assert "nextCursor" not in second["result"]
    assert bad["error"] == {"code": -32602, "message": "Invalid cursor", "data": {"cursor": "nope"}}
    # As tools/list and resources/list say it.
    assert not_text["error"] == {
        "code": -32602,
        "message": "Invalid request parameters",
        "data": "prompts/list: 'cursor' must be a string",
    }


async def test_capabilities_and_list_changed() -> None:
    server = _server()
    async with handshake(server) as peer:
        init = peer.session
        assert init is not None
        server.add_prompt(lambda: "new", name="late", description="added later")
        for _ in range(100):
            if peer.notifications("notifications/prompts/list_changed"):
                break
            import anyio

            await anyio.sleep(0.01)
        assert peer.notifications("notifications/prompts/list_changed") == [{}]
        server.remove_prompt("late")
    with pytest.raises(KeyError, match="No prompt named 'late'"):
        server.remove_prompt("late")


async def test_initialize_advertises_prompts_and_completions() -> None:
    from ..harness import session_for

    async with session_for(_server()) as peer:
        reply = await peer.request(
            0,
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}},
        )
    capabilities = reply["result"]["capabilities"]
    assert capabilities["prompts"] == {"listChanged": True}
    assert capabilities["completions"] == {}


def test_declaration_mistakes_are_named() -> None:
    server = Server("bad")
    server.prompt(lambda: "x", name="dup", description="d")
    with pytest.raises(UserError, match="already registered"):
        server.prompt(lambda: "x", name="dup", description="d")
    with pytest.raises(UserError, match=r"icon of prompt 'i'.*'src' must be"):
        server.add_prompt(lambda: "x", name="i", icons=[{"src": "file:///etc/x.png"}])
    with pytest.raises(UserError, match="completers of prompt 'c' name 'b'"):

        def c(a: str) -> str:
            return a

        server.add_prompt(c, completers={"b": ["x"]})


def test_variadic_parameters_are_refused_at_registration_naming_them() -> None:
    """`**kwargs` used to be listed as one argument named after it (`kw`), which a client could
    only fill with a JSON object in a string; `*args` likewise. FastMCP refuses both."""
    server = Server("variadic")

    def with_keywords(topic: str, **kw: str) -> str:
        return topic

    def with_positionals(*parts: str) -> str:
        return " ".join(parts)

    def with_context(ctx: ToolContext[Any], **extra: str) -> str:
        return "x"

    for func, shown in (
        (with_keywords, "`**kw`"),
        (with_positionals, "`*parts`"),
        (with_context, "`**extra`"),
    ):
        with pytest.raises(UserError) as raised:
            server.add_prompt(func)
        assert str(raised.value).startswith(f"prompt '{func.__name__}': parameter {shown} ")
    assert dict(server.prompts) == {}


def _asking_server() -> Server:
    server = Server("asking")
    form = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

    @server.prompt
    async def greet(ctx: ToolContext[Any], greeting: str = "Hello") -> str:
        """Greets the user by name."""
        answer = await ctx.elicit("What is your name?", form, key="name")
        return f"{greeting}, {answer.content['name']}!"

    return server


async def test_a_prompt_asks_the_user_over_the_back_channel_in_the_handshake_era() -> None:
    import anyio

    from ..harness import handshake

    async with handshake(_asking_server(), capabilities={"elicitation": {}}) as peer:
        await peer.feed(
            {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "greet"}}
        )
        with anyio.fail_after(10):
            while not (asked := [m for m in peer.messages if m.get("method")]):
                await anyio.sleep(0.005)
        assert asked[0]["method"] == "elicitation/create"
        assert asked[0]["params"]["message"] == "What is your name?"
        answer = {"action": "accept", "content": {"name": "Ada"}}
        await peer.feed({"jsonrpc": "2.0", "id": asked[0]["id"], "result": answer})
        reply = await peer.wait_for(1)
    assert reply["result"]["messages"][0]["content"]["text"] == "Hello, Ada!"


async def test_a_prompt_that_asks_ends_with_input_required_in_2026_07_28() -> None:
    asking = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    async with modern(_asking_server()) as peer:
        refused = await peer.request(10, "prompts/get", {"name": "greet", "_meta": meta()})
        first = await peer.request(
            1,
            "prompts/get",
            {"name": "greet", "arguments": {"greeting": "Hi"}, "_meta": meta(**asking)},
        )
        result = first["result"]
        assert result["resultType"] == "input_required"
        assert result["inputRequests"]["name"]["method"] == "elicitation/create"
        answer = {"action": "accept", "content": {"name": "Bo"}}
        retry = {
            "name": "greet",
            "arguments": {"greeting": "Hi"},
            "inputResponses": {"name": answer},
            "requestState": result["requestState"],
            "_meta": meta(**asking),
        }
        second = await peer.request(2, "prompts/get", retry)
        other = await peer.request(3, "prompts/get", {**retry, "arguments": {"greeting": "Yo"}})
    assert second["result"]["resultType"] == "complete"
    assert second["result"]["messages"][0]["content"]["text"] == "Hi, Bo!"
    validate("prompts/get", "2026-07-28", second["result"])
    # the state is bound to the prompt's arguments: other arguments are refused
    assert other["error"]["code"] == -32602
    assert other["error"]["message"] == "Invalid or expired requestState"
    assert refused["error"] == {
        "code": -32603,
        "message": "Error rendering prompt 'greet': Cannot send 'elicitation/create': the client "
        "did not declare the 'elicitation' capability.",
    }


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18"])
async def test_listing_meta_only_where_the_version_knows_it(version: str) -> None:
    server = Server("meta")
    server.add_prompt(lambda: "x", name="tagged", description="d", meta={"team": "docs"})
    async with handshake(server, version) as peer:
        reply = await peer.request(1, "prompts/list")
    entry = reply["result"]["prompts"][0]
    assert ("_meta" in entry) is (version == "2025-06-18")
    validate("prompts/list", version, reply["result"])


@pytest.mark.parametrize(
    ("meta_value", "detail"),
    [
        (3, "prompts/get: '_meta' must be an object"),
        ({"progressToken": True}, "prompts/get: 'progressToken' must be a string or integer"),
        ({"progressToken": 1.5}, "prompts/get: 'progressToken' must be a string or integer"),
    ],
)
async def test_a_malformed_progress_token_is_invalid_params(meta_value: Any, detail: str) -> None:
    async with handshake(_server()) as peer:
        for request_id, name in enumerate(("simple", "count"), start=1):
            params = {"name": name, "arguments": {"n": "2"}, "_meta": meta_value}
            if name == "simple":
                params.pop("arguments")
            reply = await peer.request(request_id, "prompts/get", params)
            assert reply["error"]["code"] == -32602, reply
            assert reply["error"]["data"] == detail


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"type": "text", "text": 5}, "'text' of a 'text' content block must be a string, not int"),
        (
            {"type": "image", "data": b"\x89PNG", "mimeType": "image/png"},
            "'data' of a 'image' content block must be a string, not bytes",
        ),
        (
            {"type": "resource_link", "uri": "x://a", "name": None},
            "'name' of a 'resource_link' content block must be a string, not NoneType",
        ),
        (
            {"type": "resource", "resource": "x://a"},
            "'resource' of a 'resource' content block must be an object with a string 'uri' "
            "and a string 'text' or 'blob'",
        ),
        (
            {"type": "resource", "resource": {"uri": "x://a"}},
            "'resource' of a 'resource' content block must be an object with a string 'uri' "
            "and a string 'text' or 'blob'",
        ),
    ],
)
async def test_a_content_block_with_a_wrong_typed_field_is_refused_naming_it(
    content: dict[str, Any], problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Failed before the fix: the block went out as it was, a result that the official client's
    # models refuse whole.
    server = Server("prompts")

    @server.prompt
    def odd() -> dict[str, Any]:
        return {"role": "user", "content": content}

    async with handshake(server) as peer:
        reply = await peer.request(1, "prompts/get", {"name": "odd"})
    assert reply["error"] == {"code": -32603, "message": "Error rendering prompt 'odd'"}
    assert f"prompt 'odd' result: {problem}" in caplog.text


async def test_well_typed_content_blocks_pass_as_given() -> None:
    server = Server("prompts")
    blocks = [
        {"type": "image", "data": PNG, "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "x://a", "blob": PNG}},
        {"type": "resource", "resource": {"uri": "x://b", "text": "b", "mimeType": "text/plain"}},
    ]

    @server.prompt
    def fine() -> list[dict[str, Any]]:
        return [{"role": "user", "content": block} for block in blocks]

    async with handshake(server) as peer:
        reply = await peer.request(1, "prompts/get", {"name": "fine"})
    validate("prompts/get", "2025-11-25", reply["result"])
    assert [message["content"] for message in reply["result"]["messages"]] == blocks


async def test_a_json_argument_nested_too_deeply_is_invalid_params_naming_it() -> None:
    """A typed argument arrives as JSON text in a string; one nested past Python's recursion
    limit used to escape as RecursionError, an internal error with a traceback logged."""
    server = Server("deep")

    @server.prompt
    def tally(items: list[Any]) -> str:
        return str(len(items))

    async with handshake(server) as peer:
        deep = "[" * 5000 + "]" * 5000
        reply = await peer.request(
            1, "prompts/get", {"name": "tally", "arguments": {"items": deep}}
        )
        fine = await peer.request(
            2, "prompts/get", {"name": "tally", "arguments": {"items": "[1]"}}
        )
    assert reply["error"] == {
        "code": -32602,
        "message": "Argument 'items' of prompt 'tally' is nested too deeply",
    }
    assert fine["result"]["messages"][0]["content"]["text"] == "1"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"content": "hi", "role": "system"}, "role must be 'user' or 'assistant', not 'system'"),
        ({"content": "hi", "role": None}, "role must be 'user' or 'assistant', not None"),
        ({"content": 5}, "content must be a string, a ToolOutput*, a ResourceLink, an "),
        ({"content": None}, "EmbeddedResource or an MCP content block, not NoneType"),
    ],
)
def test_a_prompt_message_that_could_never_be_sent_is_refused_where_it_is_made(
    arguments: dict[str, Any], message: str
) -> None:
    """It was taken, and failed only when a client asked for the prompt."""
    with pytest.raises(TypeError, match=re.escape(message)):
        PromptMessage(**arguments)
