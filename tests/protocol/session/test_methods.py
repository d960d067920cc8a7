"""Dispatch tables: what each era serves, and the capabilities derived from them."""

from __future__ import annotations

import json

import pytest

from toolwire.protocol.session.methods import Route, capabilities
from toolwire.protocol.session.session import HANDSHAKE, MODERN
from toolwire.server import Server

from ..harness import meta, modern, session_for

pytestmark = pytest.mark.anyio


async def _noop(*_: object) -> None:
    return None


def test_each_era_serves_exactly_its_methods() -> None:
    resources = ["resources/list", "resources/templates/list", "resources/read"]
    prompts = ["prompts/list", "prompts/get", "completion/complete"]
    assert list(HANDSHAKE) == [
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "logging/setLevel",
        *resources,
        "resources/subscribe",
        "resources/unsubscribe",
        *prompts,
    ]
    assert list(MODERN) == [
        "server/discover",
        "tools/list",
        "tools/call",
        "subscriptions/listen",
        *resources,
        *prompts,
    ]
    assert [m for m, route in HANDSHAKE.items() if route.before_handshake] == ["initialize", "ping"]


def test_capabilities_follow_the_tables_key_order_included() -> None:
    expected = {
        "tools": {"listChanged": True},
        "logging": {},
        "resources": {"listChanged": True, "subscribe": True},
        "prompts": {"listChanged": True},
        "completions": {},
    }
    for table in (HANDSHAKE, MODERN):
        derived = capabilities(table)
        assert json.dumps(derived) == json.dumps(expected)
    # Without subscriptions/listen a modern server could not tell of tool-list changes.
    trimmed = {
        m: r
        for m, r in MODERN.items()
        if not m.startswith(("subscriptions/", "resources/", "prompts/", "completion/"))
    }
    assert capabilities(trimmed) == {"tools": {}, "logging": {}}


def test_capabilities_are_a_fresh_dict_each_time() -> None:
    table = {"a": Route(_noop, {"tools": {"listChanged": True}})}
    first = capabilities(table)
    first["tools"]["listChanged"] = False
    assert capabilities(table) == {"tools": {"listChanged": True}}


async def test_the_wire_advertises_the_derived_capabilities() -> None:
    server = Server("caps")
    async with session_for(server) as peer:
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}}
        reply = await peer.request(1, "initialize", params)
        assert reply["result"]["capabilities"] == capabilities(HANDSHAKE)
    async with modern(server) as peer:
        reply = await peer.request(1, "server/discover", {"_meta": meta()})
        assert reply["result"]["capabilities"] == capabilities(MODERN)
