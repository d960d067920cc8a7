"""Tools that ask the client, served over real stdio subprocesses to the official `mcp` 2.3
client: `ClientSession` with elicitation/sampling/roots callbacks (the handshake era, requests
during the call) and `Client` in auto mode (2026-07-28, input-required results and retries).

The callbacks record the params the server sent, so the wire shapes are asserted as the SDK
parsed them; the tools report what they received as their text result.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from tests.interop._support import ROOT, SERVERS

pytestmark = pytest.mark.anyio

ASKING = SERVERS / "asking.py"
PROFILE_SCHEMA = {
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


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _params() -> Any:
    from mcp import StdioServerParameters

    # the client passes on only a few variables: name this tree's toolwire, not an installed one
    return StdioServerParameters(
        command=sys.executable,
        args=[str(ASKING)],
        cwd=str(ROOT),
        env={"PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"},
    )


class Peer:
    """The client's side of the questions: records what it was asked, answers as told."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, Any]]] = []
        self.elicit_answer: Any = {"action": "accept", "content": {"name": "Bob", "age": 7}}
        self.block = False
        self.cancelled = anyio.Event()

    async def _hold(self) -> None:
        if self.block:
            try:
                await anyio.sleep_forever()
            finally:
                self.cancelled.set()

    async def elicit(self, context: Any, params: Any) -> Any:
        import mcp_types as types

        self.asked.append(("elicit", params.model_dump(by_alias=True, exclude_none=True)))
        await self._hold()
        if isinstance(self.elicit_answer, types.ErrorData):
            return self.elicit_answer
        return types.ElicitResult(**self.elicit_answer)

    async def sample(self, context: Any, params: Any) -> Any:
        import mcp_types as types

        self.asked.append(("sample", params.model_dump(by_alias=True, exclude_none=True)))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Hi there"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def roots(self, context: Any) -> Any:
        import mcp_types as types

        self.asked.append(("roots", {}))
        return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])

    def callbacks(self) -> dict[str, Any]:
        return {
            "elicitation_callback": self.elicit,
            "sampling_callback": self.sample,
            "list_roots_callback": self.roots,
        }


def _text(result: Any) -> str:
    assert result.content[0].type == "text", result.content
    return str(result.content[0].text)


@contextlib.asynccontextmanager
async def _handshake_session(peer: Peer | None) -> AsyncIterator[Any]:
    """An initialized `ClientSession` to the asking server over stdio, answering through
    `peer`'s callbacks (none without a peer)."""
    from mcp import ClientSession, stdio_client

    kwargs = peer.callbacks() if peer is not None else {}
    async with (
        stdio_client(_params()) as (read, write),
        ClientSession(read, write, **kwargs) as session,
    ):
        await session.initialize()
        yield session


async def _handshake_era(peer: Peer | None, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    texts = []
    with anyio.fail_after(60):
        async with _handshake_session(peer) as session:
            for name, arguments in calls:
                texts.append(_text(await session.call_tool(name, arguments)))
    return texts


async def _auto(peer: Peer | None, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    from mcp import Client

    kwargs = peer.callbacks() if peer is not None else {}
    texts = []
    with anyio.fail_after(60):
        async with Client(_params(), **kwargs) as client:
            assert client.protocol_version == "2026-07-28"
            for name, arguments in calls:
                texts.append(_text(await client.call_tool(name, arguments)))
    return texts


@pytest.mark.parametrize("run", [_handshake_era, _auto], ids=["handshake", "2026-07-28"])
async def test_elicitation_with_a_dict_form(run: Any) -> None:
    peer = Peer()
    peer.elicit_answer = {"action": "accept", "content": {"name": "Bob", "age": 7, "tags": ["a"]}}
    [text] = await run(peer, [("ask_profile", {"message": "Tell me"})])
    assert peer.asked == [
        ("elicit", {"mode": "form", "message": "Tell me", "requestedSchema": PROFILE_SCHEMA})
    ]
    assert json.loads(text) == {
        "action": "accept",
        "content": {"name": "Bob", "age": 7, "tags": ["a"]},
    }


@pytest.mark.parametrize("run", [_handshake_era, _auto], ids=["handshake", "2026-07-28"])
async def test_an_answer_below_the_forms_minimum_never_reaches_the_tool(run: Any) -> None:
    """The official client sends whatever its callback returns: toolwire checks the form's
    bounds, so the tool gets an error instead of an age of -5."""
    peer = Peer()
    peer.elicit_answer = {"action": "accept", "content": {"name": "Bob", "age": -5}}
    [text] = await run(peer, [("ask_profile", {"message": "Tell me"})])
    assert text == (
        "ClientResponseError: The client's elicitation answer does not fit the form: "
        "age: below the minimum 0"
    )


@pytest.mark.parametrize("run", [_handshake_era, _auto], ids=["handshake", "2026-07-28"])
async def test_an_answer_breaking_a_string_format_never_reaches_the_tool(run: Any) -> None:
    """`format` (email, uri, date, date-time) is checked on the answer as the bounds are; the
    official client passes on whatever its callback returns. Before the check, each of these
    reached the tool as given."""
    peer = Peer()
    fitting = {
        "email": "ada@example.org",
        "site": "https://example.org/ada",
        "born": "1815-12-10",
        "seen": "2026-11-28T09:50:00Z",
    }
    peer.elicit_answer = {"action": "accept", "content": fitting}
    [accepted] = await run(peer, [("ask_formatted", {})])
    assert json.loads(accepted) == {"action": "accept", "content": fitting}
    peer.elicit_answer = {
        "action": "accept",
        "content": {
            "email": "ada at example.org",
            "site": "example.org/ada",
            "born": "1815-02-30",
            "seen": "next tuesday",
        },
    }
    [refused] = await run(peer, [("ask_formatted", {})])
    assert refused == (
        "ClientResponseError: The client's elicitation answer does not fit the form: "
        "email: not an email address (format 'email'); "
        "site: not an absolute URI (format 'uri'); "
        "born: not a date (YYYY-MM-DD) (format 'date'); "
        "seen: not a date and time (RFC 3339) (format 'date-time')"
    )


@pytest.mark.parametrize("run", [_handshake_era, _auto], ids=["handshake", "2026-07-28"])
async def test_elicitation_with_a_model_and_a_decline(run: Any) -> None:
    peer = Peer()
    peer.elicit_answer = {"action": "accept", "content": {"username": "bob", "plan": "pro"}}
    [accepted] = await run(peer, [("ask_contact", {})])
    assert peer.asked[0][1]["requestedSchema"] == {
        "type": "object",
        "properties": {
            "username": {"description": "Who you are", "title": "Username", "type": "string"},
            "email": {"type": "string", "title": "Email"},
            "plan": {"default": "free", "enum": ["free", "pro"], "title": "Plan", "type": "string"},
        },
        "required": ["username"],
    }
    assert json.loads(accepted)["content"] == {
        "model": "Contact",
        "username": "bob",
        "email": None,
        "plan": "pro",
    }
    peer.elicit_answer = {"action": "decline"}
    [declined] = await run(peer, [("ask_contact", {})])
    assert json.loads(declined) == {"action": "decline", "content": None}


@pytest.mark.parametrize("run", [_handshake_era, _auto], ids=["handshake", "2026-07-28"])
async def test_sampling(run: Any) -> None:
    peer = Peer()
    [text] = await run(peer, [("ask_model", {"prompt": "Say hi"})])
    assert peer.asked == [
        (
            "sample",
            {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
                "systemPrompt": "Be brief.",
                "maxTokens": 50,
            },
        )
    ]
    assert json.loads(text) == {
        "text": "Hi there",
        "model": "test-model",
        "role": "assistant",
        "stop": "endTurn",
    }


@pytest.mark.parametrize("run", [_handshake_era, _auto], ids=["handshake", "2026-07-28"])
async def test_three_questions_at_once_and_two_rounds(run: Any) -> None:
    peer = Peer()
    peer.elicit_answer = {"action": "accept", "content": {"name": "Bob", "color": "teal"}}
    together, stepwise = await run(peer, [("ask_all", {}), ("ask_twice", {})])
    assert json.loads(together) == {
        "name": {"name": "Bob", "color": "teal"},
        "text": "Hi there",
        "roots": [{"uri": "file:///work", "name": "work"}],
    }
    assert stepwise == "Bob likes teal"
    assert sorted(kind for kind, _ in peer.asked[:3]) == ["elicit", "roots", "sample"]
    assert [params["message"] for _, params in peer.asked[3:]] == ["Step 1", "Step 2, Bob"]


@pytest.mark.parametrize("run", [_handshake_era, _auto], ids=["handshake", "2026-07-28"])
async def test_a_client_without_the_capabilities(run: Any) -> None:
    profile, model = await run(
        None, [("ask_profile", {"message": "?"}), ("ask_model", {"prompt": "?"})]
    )
    assert profile == (
        "ClientCapabilityError: Cannot send 'elicitation/create': the client did not declare "
        "the 'elicitation' capability."
    )
    assert model == (
        "ClientCapabilityError: Cannot send 'sampling/createMessage': the client did not "
        "declare the 'sampling' capability."
    )


async def test_a_client_answering_with_an_error() -> None:
    import mcp_types as types

    peer = Peer()
    peer.elicit_answer = types.ErrorData(code=-32001, message="User is away")
    [text] = await _handshake_era(peer, [("ask_profile", {"message": "?"})])
    assert text == (
        "ClientResponseError: The client answered 'elicitation/create' with error -32001: "
        "User is away"
    )


async def test_a_call_cancelled_while_waiting_withdraws_its_question() -> None:
    peer = Peer()
    peer.block = True
    with anyio.fail_after(60):
        async with _handshake_session(peer) as session:
            with anyio.move_on_after(1):  # the client gives up: it sends notifications/cancelled
                await session.call_tool("ask_profile", {"message": "Wait"})
            await peer.cancelled.wait()  # the server withdrew the question
            peer.block = False
            assert (
                json.loads(_text(await session.call_tool("ask_profile", {"message": "Again"})))[
                    "action"
                ]
                == "accept"
            )


async def test_an_unanswered_question_times_out_and_is_withdrawn() -> None:
    peer = Peer()
    peer.block = True
    with anyio.fail_after(60):
        async with _handshake_session(peer) as session:
            text = _text(await session.call_tool("ask_slowly", {"seconds": 0.2}))
            assert text == (
                "ClientTimeoutError: The client did not answer 'elicitation/create' within "
                "0.2 seconds."
            )
            await peer.cancelled.wait()  # withdrawn while the session is still open


async def test_a_form_outside_the_subset_is_never_sent() -> None:
    peer = Peer()
    texts = await _handshake_era(
        peer, [("ask_bad_form", {"which": w}) for w in ("nested", "default", "enum", "root")]
    )
    assert texts == [
        "UserError: elicitation schema: property 'address': nested objects are not allowed in a "
        "form; use flat fields",
        "UserError: elicitation schema: property 'n': 'default' must be an integer, not 'x'",
        "UserError: elicitation schema: property 'c': 'enum' must be a non-empty list of strings",
        'UserError: elicitation schema: the top level must have "type": "object"',
    ]
    assert peer.asked == []
