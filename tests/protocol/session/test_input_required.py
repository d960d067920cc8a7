"""2026-07-28 era: a tool's questions end the call with an input-required result; the retry
with the answers (and the sealed requestState) runs the tool again to completion."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anyio
import pytest

from toolwire import ClientRequestError, ToolContext
from toolwire.protocol.session import input_required
from toolwire.protocol.session.input_required import (
    MAX_STATE_CHARS,
    InputRound,
    StateBinding,
    seal_state,
)
from toolwire.server import Server

from ..harness import SERVER_INFO_KEY, meta, modern, validate

pytestmark = pytest.mark.anyio

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
COLOR_FORM = {"type": "object", "properties": {"color": {"type": "string"}}}
EVERYTHING = {"elicitation": {}, "sampling": {}, "roots": {"listChanged": True}}
RUNS: list[str] = []


def _server() -> Server:
    server = Server("mrtr", version="2.0")

    @server.tool
    async def greet(ctx: ToolContext[Any], punctuation: str = "!") -> str:
        """One question."""
        RUNS.append("greet")
        answer = await ctx.elicit("What is your name?", NAME_FORM, key="user_name")
        return f"Hello, {answer.content['name']}{punctuation}"

    @server.tool
    async def two_steps(ctx: ToolContext[Any]) -> str:
        """Two rounds."""
        first = await ctx.elicit("Step 1", NAME_FORM)
        second = await ctx.elicit("Step 2", COLOR_FORM)
        return f"{first.content['name']}:{second.content['color']}"

    @server.tool
    async def everything(ctx: ToolContext[Any]) -> str:
        """Three questions in one round."""
        name, reply, roots = await asyncio.gather(
            ctx.elicit("Name?", NAME_FORM),
            ctx.sample("Greet", max_tokens=10),
            ctx.list_roots(),
        )
        return json.dumps([name.content, reply.text, roots])

    @server.tool
    async def polite(ctx: ToolContext[Any]) -> str:
        """Elicit if allowed, else sample."""
        try:
            await ctx.elicit("Name?", NAME_FORM)
        except ClientRequestError as error:
            reply = await ctx.sample(str(error), max_tokens=5)
            return reply.text
        return "elicited"

    return server


def _call(name: str, capabilities: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    envelope = meta(**{"io.modelcontextprotocol/clientCapabilities": capabilities or EVERYTHING})
    return {"name": name, "arguments": extra.pop("arguments", {}), "_meta": envelope, **extra}


def _accept(content: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": content}


async def test_round_one_asks_and_round_two_completes() -> None:
    RUNS.clear()
    async with modern(_server()) as peer:
        first = (await peer.request(1, "tools/call", _call("greet")))["result"]
        state = first["requestState"]
        assert first == {
            "resultType": "input_required",
            "inputRequests": {
                "user_name": {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": "What is your name?",
                        "requestedSchema": NAME_FORM,
                    },
                }
            },
            "requestState": state,
            "_meta": {SERVER_INFO_KEY: {"name": "mrtr", "version": "2.0"}},
        }
        validate("tools/call", "2026-07-28", first)
        retry = _call(
            "greet", inputResponses={"user_name": _accept({"name": "Ada"})}, requestState=state
        )
        second = (await peer.request(2, "tools/call", retry))["result"]
        assert second["resultType"] == "complete"
        assert second["content"] == [{"type": "text", "text": "Hello, Ada!"}]
        assert RUNS == ["greet", "greet"]  # the tool ran again from the start


async def test_answers_without_state_are_used_and_extra_keys_ignored() -> None:
    async with modern(_server()) as peer:
        responses = {
            "user_name": _accept({"name": "Bo"}),
            "junk": {"action": "accept", "content": {}},
        }
        reply = await peer.request(1, "tools/call", _call("greet", inputResponses=responses))
        assert reply["result"]["content"] == [{"type": "text", "text": "Hello, Bo!"}]


async def test_a_missing_answer_is_asked_for_again() -> None:
    async with modern(_server()) as peer:
        responses = {"wrong_key": _accept({"data": "x"})}
        reply = await peer.request(1, "tools/call", _call("greet", inputResponses=responses))
        assert reply["result"]["resultType"] == "input_required"
        assert list(reply["result"]["inputRequests"]) == ["user_name"]


async def test_multi_round_state_carries_earlier_answers() -> None:
    async with modern(_server()) as peer:
        one = (await peer.request(1, "tools/call", _call("two_steps")))["result"]
        assert list(one["inputRequests"]) == ["elicitation-1"]
        two = (
            await peer.request(
                2,
                "tools/call",
                _call(
                    "two_steps",
                    inputResponses={"elicitation-1": _accept({"name": "Ada"})},
                    requestState=one["requestState"],
                ),
            )
        )["result"]
        assert list(two["inputRequests"]) == ["elicitation-2"]
        assert two["inputRequests"]["elicitation-2"]["params"]["message"] == "Step 2"
        assert two["requestState"] != one["requestState"]
        # Round three brings only the newest answer: the first comes from the state.
        three = await peer.request(
            3,
            "tools/call",
            _call(
                "two_steps",
                inputResponses={"elicitation-2": _accept({"color": "blue"})},
                requestState=two["requestState"],
            ),
        )
        assert three["result"]["content"] == [{"type": "text", "text": "Ada:blue"}]


async def test_questions_asked_together_go_out_in_one_round() -> None:
    async with modern(_server()) as peer:
        first = (await peer.request(1, "tools/call", _call("everything")))["result"]
        requests = first["inputRequests"]
        assert {key: item["method"] for key, item in requests.items()} == {
            "elicitation-1": "elicitation/create",
            "sampling-2": "sampling/createMessage",
            "roots-3": "roots/list",
        }
        assert requests["sampling-2"]["params"] == {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Greet"}}],
            "maxTokens": 10,
        }
        assert requests["roots-3"]["params"] == {}
        validate("tools/call", "2026-07-28", first)
        responses = {
            "elicitation-1": _accept({"name": "Ada"}),
            "sampling-2": {
                "role": "assistant",
                "content": {"type": "text", "text": "Hi!"},
                "model": "m",
                "stopReason": "endTurn",
            },
            "roots-3": {"roots": [{"uri": "file:///r", "name": "R"}]},
        }
        retry = _call("everything", inputResponses=responses, requestState=first["requestState"])
        done = (await peer.request(2, "tools/call", retry))["result"]
        assert json.loads(done["content"][0]["text"]) == [
            {"name": "Ada"},
            "Hi!",
            [{"uri": "file:///r", "name": "R"}],
        ]


async def test_only_declared_capabilities_are_asked_for() -> None:
    async with modern(_server()) as peer:
        reply = await peer.request(1, "tools/call", _call("polite", {"sampling": {}}))
        requests = reply["result"]["inputRequests"]
        assert [item["method"] for item in requests.values()] == ["sampling/createMessage"]
        prompt = requests["sampling-1"]["params"]["messages"][0]["content"]["text"]
        assert prompt == (
            "Cannot send 'elicitation/create': the client did not declare the 'elicitation' "
            "capability."
        )


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda state: state + "-TAMPERED", "the state's seal does not match"),
        (lambda state: "x" + state[1:], "the state's seal does not match"),
        (lambda state: "not-a-state", "not a state this server issued"),
        (lambda state: "a" * (MAX_STATE_CHARS + 1), "requestState is longer than"),
    ],
)
async def test_a_tampered_state_is_refused(change: Any, reason: str) -> None:
    async with modern(_server()) as peer:
        first = (await peer.request(1, "tools/call", _call("greet")))["result"]
        retry = _call(
            "greet",
            inputResponses={"user_name": _accept({"name": "Eve"})},
            requestState=change(first["requestState"]),
        )
        error = (await peer.request(2, "tools/call", retry))["error"]
        assert (error["code"], error["message"]) == (-32602, "Invalid or expired requestState")
        assert error["data"]["reason"].startswith(reason)


async def test_a_state_from_another_call_or_server_is_refused() -> None:
    async with modern(_server()) as peer:
        first = (await peer.request(1, "tools/call", _call("greet")))["result"]
        state = first["requestState"]
        answers = {"user_name": _accept({"name": "Eve"})}
        other_args = _call(
            "greet", arguments={"punctuation": "?"}, inputResponses=answers, requestState=state
        )
        error = (await peer.request(2, "tools/call", other_args))["error"]
        assert error["data"] == {"reason": "the state was issued for another request"}
        other_tool = _call("two_steps", inputResponses=answers, requestState=state)
        error = (await peer.request(3, "tools/call", other_tool))["error"]
        assert error["data"] == {"reason": "the state was issued for another request"}
        input_required._secret.cache_clear()  # as if another process (another key) had issued it
        try:
            same = _call("greet", inputResponses=answers, requestState=state)
            error = (await peer.request(4, "tools/call", same))["error"]
            assert error["data"]["reason"].startswith("the state's seal does not match")
        finally:
            input_required._secret.cache_clear()


async def test_an_expired_state_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(input_required, "STATE_TTL_SECONDS", -1.0)
    async with modern(_server()) as peer:
        first = (await peer.request(1, "tools/call", _call("greet")))["result"]
        retry = _call("greet", inputResponses={}, requestState=first["requestState"])
        error = (await peer.request(2, "tools/call", retry))["error"]
        assert error["data"] == {"reason": "the state has expired"}


@pytest.mark.parametrize(
    ("responses", "detail"),
    [
        (None, "tools/call: 'inputResponses' must be an object"),
        ({"user_name": 12345}, "tools/call: inputResponses['user_name'] must be an object"),
    ],
)
async def test_malformed_input_responses_are_invalid_params(responses: Any, detail: str) -> None:
    async with modern(_server()) as peer:
        error = (await peer.request(1, "tools/call", _call("greet", inputResponses=responses)))[
            "error"
        ]
        assert error["code"] == -32602
        assert error["data"].startswith(detail)


async def test_a_malformed_answer_reaches_the_tool_as_an_error() -> None:
    async with modern(_server()) as peer:
        responses = {"user_name": {"action": "accept", "content": {"name": 5}}}
        reply = await peer.request(1, "tools/call", _call("greet", inputResponses=responses))
        assert reply["result"]["isError"] is True  # the tool did not catch it


async def test_state_too_large_to_carry_fails_the_question() -> None:
    binding = StateBinding("tools/call", "t", {}, None)
    round = InputRound(binding, {"big": _accept({"x": "y" * MAX_STATE_CHARS})})
    assert (await round.ask("elicitation/create", {}, "big"))["action"] == "accept"

    async def second() -> None:
        await round.ask("elicitation/create", {}, "next")

    with anyio.fail_after(10):
        task = asyncio.ensure_future(second())
        await asyncio.sleep(0)
        assert round.result({"name": "t", "version": "1"}) is None
        with pytest.raises(ClientRequestError, match="too large to carry to the next round"):
            await task


def test_states_differ_per_binding_and_round_trip() -> None:
    binding = StateBinding("tools/call", "t", {"a": 1}, "alice")
    state = seal_state(binding, {"k": {"action": "decline"}})
    assert input_required.open_state(state, binding) == {"k": {"action": "decline"}}
    with pytest.raises(Exception, match="requestState"):
        input_required.open_state(state, StateBinding("tools/call", "t", {"a": 1}, "bob"))


async def test_a_retry_is_checked_even_for_a_tool_that_never_asks() -> None:
    # A call's asker is made lazily; the answers a retry brings are checked up front all the
    # same, whether or not the tool goes on to ask.
    server = _server()

    @server.tool
    def quiet() -> str:
        """Never asks."""
        return "done"

    async with modern(server) as peer:
        plain = (await peer.request(1, "tools/call", _call("quiet")))["result"]
        assert plain["content"][0]["text"] == "done"
        malformed = _call("quiet", inputResponses={"k": 1})
        error = (await peer.request(2, "tools/call", malformed))["error"]
        assert error["code"] == -32602
        assert error["data"].startswith("tools/call: inputResponses['k'] must be an object")
        forged = _call("quiet", inputResponses={}, requestState="not-a-state")
        error = (await peer.request(3, "tools/call", forged))["error"]
        assert error["code"] == -32602
        assert "requestState" in json.dumps(error)
