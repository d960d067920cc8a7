"""completion/complete through a real session: declared completers, the server-wide handler,
the spec's limits, context arguments, and bad refs named."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

from toolwire.server import Server

from ..harness import handshake, meta, modern, validate

pytestmark = pytest.mark.anyio


def _server(handler: bool = False) -> Server:
    server = Server("complete")

    async def cities(value: str, context: dict[str, str]) -> list[str]:
        country = context.get("country", "")
        known = {"fr": ["Paris", "Lyon", "Lille"], "uk": ["London", "Leeds"]}
        return [city for city in known.get(country, []) if city.lower().startswith(value.lower())]

    @server.prompt(
        completers={
            "country": ["fr", "uk", "us"],
            "city": cities,
            "number": lambda value, _context: (f"{value}{i}" for i in range(1000)),
        }
    )
    def travel(country: str, city: str, number: str = "", note: str = "") -> str:
        """Plan a trip."""
        return f"{city}, {country}"

    if handler:

        @server.completion
        def fallback(ref: dict[str, Any], argument: str, value: str, context: Any) -> list[str]:
            return [f"{ref['name']}:{argument}:{value}"]

    return server


def _params(name: str, argument: str, value: str, **extra: Any) -> dict[str, Any]:
    return {
        "ref": {"type": "ref/prompt", "name": name},
        "argument": {"name": argument, "value": value},
        **extra,
    }


async def test_fixed_choices_filter_by_prefix_and_functions_see_the_context() -> None:
    async with handshake(_server()) as peer:
        country = await peer.request(1, "completion/complete", _params("travel", "country", "U"))
        city = await peer.request(
            2,
            "completion/complete",
            _params("travel", "city", "l", context={"arguments": {"country": "fr"}}),
        )
        nothing = await peer.request(3, "completion/complete", _params("travel", "note", "x"))
    assert country["result"] == {
        "completion": {"values": ["uk", "us"], "total": 2, "hasMore": False}
    }
    assert city["result"]["completion"]["values"] == ["Lyon", "Lille"]
    assert nothing["result"] == {"completion": {"values": [], "total": 0, "hasMore": False}}
    for reply in (country, city, nothing):
        validate("completion/complete", "2025-11-25", reply["result"])


async def test_at_most_one_hundred_values_with_total_and_has_more() -> None:
    async with handshake(_server()) as peer:
        reply = await peer.request(1, "completion/complete", _params("travel", "number", "n"))
    completion = reply["result"]["completion"]
    assert len(completion["values"]) == 100
    assert completion["values"][:2] == ["n0", "n1"]
    assert completion["total"] == 1000 and completion["hasMore"] is True


async def test_the_server_wide_handler_answers_what_no_completer_does() -> None:
    async with handshake(_server(handler=True)) as peer:
        reply = await peer.request(1, "completion/complete", _params("travel", "note", "ab"))
        declared = await peer.request(2, "completion/complete", _params("travel", "country", "f"))
    assert reply["result"]["completion"]["values"] == ["travel:note:ab"]
    assert declared["result"]["completion"]["values"] == ["fr"]


async def test_modern_results_are_stamped() -> None:
    async with modern(_server()) as peer:
        reply = await peer.request(
            1, "completion/complete", {**_params("travel", "country", ""), "_meta": meta()}
        )
    assert reply["result"]["resultType"] == "complete"
    assert reply["result"]["completion"]["values"] == ["fr", "uk", "us"]
    validate("completion/complete", "2026-07-28", reply["result"])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (_params("nowhere", "x", ""), "Unknown prompt: nowhere"),
        (
            _params("travel", "colour", ""),
            "Prompt 'travel' has no argument 'colour' (its arguments: country, city, number, note)",
        ),
        (
            {"ref": {"type": "ref/resource", "uri": "db://{table}"}, "argument": {"name": "t"}},
            "Unknown resource template: db://{table}",
        ),
        (
            {"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "a", "value": ""}},
            "completion/complete: 'ref' must be {'type': 'ref/prompt', 'name': ...} or "
            "{'type': 'ref/resource', 'uri': ...}",
        ),
        (
            {"ref": {"type": "ref/prompt"}, "argument": {"name": "a", "value": ""}},
            "completion/complete: ref/prompt needs a string 'name'",
        ),
        (
            {"ref": {"type": "ref/prompt", "name": "travel"}},
            "completion/complete: 'argument' must be an object with a string 'name'",
        ),
        (
            _params("travel", "city", "", context={"arguments": {"country": 3}}),
            "completion/complete: 'context.arguments' must be an object of strings",
        ),
    ],
)
async def test_bad_requests_are_invalid_params_naming_what_was_wrong(
    params: dict[str, Any], message: str
) -> None:
    async with handshake(_server()) as peer:
        reply = await peer.request(1, "completion/complete", params)
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"] == message


async def test_a_completer_returning_nonsense_is_an_internal_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = Server("broken")
    server.add_prompt(
        lambda a: a, name="p", description="d", completers={"a": lambda _v, _c: [1, 2]}
    )
    async with handshake(server) as peer:
        reply = await peer.request(1, "completion/complete", _params("p", "a", ""))
    assert reply["error"] == {
        "code": -32603,
        "message": "Completion failed for argument 'a' of prompt 'p'",
    }
    assert "returned a int value" in caplog.text


async def test_resource_template_parameters_complete_from_the_template_completers() -> None:
    server = Server("templates")

    @server.resource(
        "db://{schema}/{table}/rows",
        completers={
            "table": lambda value, context: (
                [t for t in ("users", "orders", "unicorns") if t.startswith(value)]
                if context.get("schema") == "public"
                else []
            )
        },
    )
    def rows(schema: str, table: str) -> str:
        """The rows of a table."""
        return f"{schema}.{table}"

    ref = {"type": "ref/resource", "uri": "db://{schema}/{table}/rows"}
    async with handshake(server) as peer:
        found = await peer.request(
            1,
            "completion/complete",
            {
                "ref": ref,
                "argument": {"name": "table", "value": "u"},
                "context": {"arguments": {"schema": "public"}},
            },
        )
        none = await peer.request(
            2, "completion/complete", {"ref": ref, "argument": {"name": "schema", "value": ""}}
        )
        wrong = await peer.request(
            3, "completion/complete", {"ref": ref, "argument": {"name": "column", "value": ""}}
        )
    assert found["result"]["completion"]["values"] == ["users", "unicorns"]
    assert none["result"]["completion"] == {"values": [], "total": 0, "hasMore": False}
    assert wrong["error"] == {
        "code": -32602,
        "message": "Resource template 'db://{schema}/{table}/rows' has no parameter 'column' "
        "(its parameters: schema, table)",
    }


async def test_a_blocking_completer_holds_no_other_request() -> None:
    # Failed before the fix: a plain completer ran on the event loop, so the ping waited for
    # it, and the completer gave up waiting for the ping ("late").
    server = Server("complete")
    answered = threading.Event()

    def slow(value: str, _context: dict[str, str]) -> list[str]:
        return ["released" if answered.wait(10) else "late"]

    @server.prompt(completers={"topic": slow})
    def ask(topic: str) -> str:
        return topic

    async with handshake(server) as peer:
        params = {"ref": {"type": "ref/prompt", "name": "ask"}, "argument": {"name": "topic"}}
        with anyio.fail_after(20):
            await peer.feed(
                {"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": params}
            )
            assert await peer.request(2, "ping") == {"jsonrpc": "2.0", "id": 2, "result": {}}
            answered.set()
            reply = await peer.wait_for(1)
    assert reply["result"]["completion"]["values"] == ["released"]
    assert [message["id"] for message in peer.messages] == [2, 1]


async def test_a_completer_that_never_answers_can_be_cancelled() -> None:
    # Failed before the fix: the completion was awaited inside `receive`, so the request
    # could not even be handed over, and nothing could cancel it.
    server = Server("complete")
    started = anyio.Event()
    stopped: list[str] = []

    async def stuck(value: str, _context: dict[str, str]) -> list[str]:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            stopped.append(value)
        return []

    @server.prompt(completers={"topic": stuck})
    def ask(topic: str) -> str:
        return topic

    async with handshake(server) as peer:
        params = {
            "ref": {"type": "ref/prompt", "name": "ask"},
            "argument": {"name": "topic", "value": "x"},
        }
        with anyio.fail_after(10):
            await peer.feed(
                {"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": params}
            )
            await started.wait()
            await peer.notify("notifications/cancelled", {"requestId": 1})
            assert await peer.request(2, "ping") == {"jsonrpc": "2.0", "id": 2, "result": {}}
            while not stopped:
                await anyio.sleep(0.01)
    assert stopped == ["x"]
    assert [message.get("id") for message in peer.messages] == [2]  # no reply to the cancelled one


async def test_a_plain_function_returning_a_coroutine_or_a_generator_is_read() -> None:
    server = Server("complete")

    async def later(value: str) -> list[str]:
        return [value + "-async"]

    @server.prompt(
        completers={
            "a": lambda value, _context: later(value),
            "b": lambda value, _context: (value + str(i) for i in range(3)),
            "c": lambda value, _context: [1],
        }
    )
    def many(a: str, b: str, c: str) -> str:
        return a + b + c

    async def ask(argument: str, request_id: int) -> dict[str, Any]:
        params = {
            "ref": {"type": "ref/prompt", "name": "many"},
            "argument": {"name": argument, "value": "v"},
        }
        return await peer.request(request_id, "completion/complete", params)

    async with handshake(server) as peer:
        assert (await ask("a", 1))["result"]["completion"]["values"] == ["v-async"]
        assert (await ask("b", 2))["result"]["completion"]["values"] == ["v0", "v1", "v2"]
        assert (await ask("c", 3))["error"] == {
            "code": -32603,
            "message": "Completion failed for argument 'c' of prompt 'many'",
        }
