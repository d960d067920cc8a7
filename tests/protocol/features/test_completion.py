"""completion/complete through a real session: declared completers, the server-wide handler,
the spec's limits, context arguments, and bad refs named."""

from __future__ import annotations

from typing import Any

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
