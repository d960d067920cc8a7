"""Resources and resource templates on a raw session, both eras: exact results, checked against
the official `mcp_types` models of each version, and every refusal's code and message."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from typing import Any

import anyio
import pytest

from toolwire.server import Server

from ..harness import SERVER_INFO_KEY, handshake, meta, modern, session_for, validate

pytestmark = pytest.mark.anyio
V = "2026-07-28"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def _server() -> Server:
    server = Server("library", version="1.0.0")

    @server.resource(
        "test://static-text",
        name="static-text",
        title="Static text",
        description="A static text resource.",
        mime_type="text/plain",
    )
    def static_text() -> str:
        return "This is the content of the static text resource."

    @server.resource("test://static-binary", mime_type="image/png")
    def static_binary() -> bytes:
        """A tiny picture."""
        return PNG

    @server.resource("test://template/{id}/data", mime_type="application/json")
    def template(id: int) -> dict[str, Any]:
        """Data for one id."""
        return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}

    @server.resource("users://{name}/profile")
    async def profile(name: str) -> str | None:
        return None if name == "ghost" else f"profile of {name}"

    @server.resource("config://app", icons=[{"src": "data:image/png;base64,AA=="}])
    def config() -> dict[str, Any]:
        return {"debug": False}

    return server


async def _read(peer: Any, uri: Any, request_id: int = 1, **params: Any) -> dict[str, Any]:
    return await peer.request(request_id, "resources/read", {"uri": uri, **params})


async def test_list_shows_fixed_resources_with_what_each_version_knows() -> None:
    server = _server()
    async with handshake(server) as peer:
        reply = await peer.request(1, "resources/list")
        result = reply["result"]
        validate("resources/list", "2025-11-25", result)
        assert result == {
            "resources": [
                {
                    "uri": "test://static-text",
                    "name": "static-text",
                    "title": "Static text",
                    "description": "A static text resource.",
                    "mimeType": "text/plain",
                },
                {
                    "uri": "test://static-binary",
                    "name": "static_binary",
                    "description": "A tiny picture.",
                    "mimeType": "image/png",
                },
                {
                    "uri": "config://app",
                    "name": "config",
                    "icons": [{"src": "data:image/png;base64,AA=="}],
                },
            ]
        }
    async with handshake(server, "2025-03-26") as peer:  # no title, no icons yet
        result = (await peer.request(1, "resources/list"))["result"]
        validate("resources/list", "2025-03-26", result)
        assert "title" not in result["resources"][0]
        assert "icons" not in result["resources"][2]


async def test_templates_list_in_both_eras() -> None:
    server = _server()
    listed = [
        {
            "uriTemplate": "test://template/{id}/data",
            "name": "template",
            "description": "Data for one id.",
            "mimeType": "application/json",
        },
        {"uriTemplate": "users://{name}/profile", "name": "profile"},
    ]
    async with handshake(server) as peer:
        result = (await peer.request(1, "resources/templates/list"))["result"]
        validate("resources/templates/list", "2025-11-25", result)
        assert result == {"resourceTemplates": listed}
    async with modern(server) as peer:
        result = (await peer.request(1, "resources/templates/list", {"_meta": meta()}))["result"]
        validate("resources/templates/list", V, result)
        assert result["resourceTemplates"] == listed
        assert result["resultType"] == "complete"
        assert result["ttlMs"] == 0 and result["cacheScope"] == "private"
        assert result["_meta"][SERVER_INFO_KEY] == {"name": "library", "version": "1.0.0"}


async def test_read_text_blob_json_and_template_contents() -> None:
    async with handshake(_server()) as peer:
        text = (await _read(peer, "test://static-text"))["result"]
        validate("resources/read", "2025-11-25", text)
        assert text == {
            "contents": [
                {
                    "uri": "test://static-text",
                    "mimeType": "text/plain",
                    "text": "This is the content of the static text resource.",
                }
            ]
        }
        blob = (await _read(peer, "test://static-binary", 2))["result"]["contents"]
        assert blob == [
            {
                "uri": "test://static-binary",
                "mimeType": "image/png",
                "blob": base64.b64encode(PNG).decode(),
            }
        ]
        data = (await _read(peer, "test://template/123/data", 3))["result"]["contents"]
        assert data[0]["uri"] == "test://template/123/data"  # the URI read, not the template
        assert json.loads(data[0]["text"]) == {
            "id": 123,  # converted to the annotated int
            "templateTest": True,
            "data": "Data for ID: 123",
        }
        config = (await _read(peer, "config://app", 4))["result"]["contents"]
        assert config == [
            {"uri": "config://app", "mimeType": "application/json", "text": '{"debug": false}'}
        ]
    async with modern(_server()) as peer:
        result = (await _read(peer, "test://static-text", _meta=meta()))["result"]
        validate("resources/read", V, result)
        assert result["resultType"] == "complete" and result["ttlMs"] == 0


@pytest.mark.parametrize("uri", ["test://nope", "users://ghost/profile", "test://template//data"])
async def test_an_unknown_resource_is_not_found_with_each_eras_code(uri: str) -> None:
    async with handshake(_server()) as peer:
        reply = await _read(peer, uri)
        assert reply["error"] == {
            "code": -32002,  # the handshake era's specification
            "message": f"Resource not found: {uri}",
            "data": {"uri": uri},
        }
    async with modern(_server()) as peer:
        reply = await _read(peer, uri, _meta=meta())
        assert reply["error"] == {
            "code": -32602,  # SEP-2164, 2026-07-28
            "message": f"Resource not found: {uri}",
            "data": {"uri": uri},
        }


async def test_wrong_typed_template_values_name_the_parameter() -> None:
    async with handshake(_server()) as peer:
        reply = await _read(peer, "test://template/abc/data")
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid parameters for resource template 'test://template/{id}/data': "
            "id: Input should be a valid integer, unable to parse string as an integer",
            "data": {"uri": "test://template/abc/data"},
        }


async def test_malformed_params_are_invalid_params() -> None:
    async with handshake(_server()) as peer:
        for i, params in enumerate([{}, {"uri": 5}, {"uri": None}]):
            reply = await peer.request(i, "resources/read", params)
            assert reply["error"] == {
                "code": -32602,
                "message": "Invalid request parameters",
                "data": "resources/read: 'uri' must be a string",
            }
        reply = await peer.request(9, "resources/list", {"cursor": 3})
        assert reply["error"]["data"] == "resources/list: 'cursor' must be a string"
        reply = await peer.request(10, "resources/templates/list", {"cursor": "bogus"})
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid cursor",
            "data": {"cursor": "bogus"},
        }


async def test_a_failing_function_is_an_internal_error_logged_not_shown(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = Server("broken")

    @server.resource("secret://thing")
    def thing() -> str:
        raise RuntimeError("password=hunter2")

    caplog.set_level(logging.ERROR, logger="toolwire.protocol")
    async with handshake(server) as peer:
        reply = await _read(peer, "secret://thing")
        assert reply["error"] == {
            "code": -32603,
            "message": "Error reading resource secret://thing",
            "data": {"uri": "secret://thing"},
        }
        assert "hunter2" not in json.dumps(reply)
    assert "password=hunter2" in caplog.text  # the author sees why


async def test_lists_are_paginated_as_tools_are() -> None:
    server = Server("many")
    for i in range(250):
        server.add_resource(f"n://{i:03}", f"value {i}")
    async with handshake(server) as peer:
        seen: list[str] = []
        cursor = None
        for page in range(5):  # bounded: three pages expected
            params = {} if cursor is None else {"cursor": cursor}
            result = (await peer.request(page, "resources/list", params))["result"]
            seen += [item["uri"] for item in result["resources"]]
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        assert seen == [f"n://{i:03}" for i in range(250)]
        assert page == 2
        read = (await _read(peer, "n://007", 50))["result"]["contents"]
        assert read == [{"uri": "n://007", "mimeType": "text/plain", "text": "value 7"}]


async def test_handshake_subscriptions_get_updated_notifications() -> None:
    server = _server()
    async with handshake(server) as peer:
        assert (await peer.request(1, "resources/subscribe", {"uri": "test://static-text"})) == {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {},
        }
        # a template's concrete URI can be followed too
        await peer.request(2, "resources/subscribe", {"uri": "test://template/7/data"})
        unknown = await peer.request(3, "resources/subscribe", {"uri": "test://typo"})
        assert unknown["error"]["code"] == -32002
        assert unknown["error"]["message"] == "Resource not found: test://typo"
        peer.take()
        server.notify_resource_updated("test://static-text")
        server.notify_resource_updated("test://static-binary")  # not followed
        server.notify_resource_updated("test://template/7/data")
        await anyio.sleep(0.05)
        assert peer.take() == [
            {
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": {"uri": "test://static-text"},
            },
            {
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": {"uri": "test://template/7/data"},
            },
        ]
        await peer.request(4, "resources/unsubscribe", {"uri": "test://static-text"})
        await peer.request(5, "resources/unsubscribe", {"uri": "never://subscribed"})
        peer.take()
        server.notify_resource_updated("test://static-text")
        await anyio.sleep(0.05)
        assert peer.take() == []


async def test_subscriptions_are_bounded_per_connection() -> None:
    from toolwire.protocol.features.resources import MAX_SUBSCRIPTIONS

    server = Server("bounded")

    @server.resource("n://{i}")
    def number(i: int) -> str:
        return str(i)

    async with handshake(server) as peer:
        for i in range(MAX_SUBSCRIPTIONS):
            await peer.feed(
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "resources/subscribe",
                    "params": {"uri": f"n://{i}"},
                }
            )
        assert all("result" in m for m in peer.take())
        reply = await peer.request("over", "resources/subscribe", {"uri": "n://-1"})
        assert reply["error"] == {"code": -32603, "message": "Subscription limit reached"}
        again = await peer.request("again", "resources/subscribe", {"uri": "n://0"})
        assert again["result"] == {}  # already followed: no new entry


async def test_publishing_and_removing_tells_clients_the_list_changed() -> None:
    server = _server()
    async with handshake(server) as peer:
        server.add_resource("late://one", "late")
        server.remove_resource("late://one")
        await anyio.sleep(0.05)
        changed = peer.notifications("notifications/resources/list_changed")
        assert changed == [{}, {}]


async def test_modern_listen_streams_carry_resource_updates_and_list_changes() -> None:
    server = _server()
    async with modern(server) as peer:
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": "sub",
                "method": "subscriptions/listen",
                "params": {
                    "_meta": meta(),
                    "notifications": {
                        "resourcesListChanged": True,
                        "resourceSubscriptions": [
                            "test://static-text",
                            "test://template/9/data",
                            "test://unknown",
                            "test://static-text",
                        ],
                    },
                },
            }
        )
        ack = peer.take()
        assert ack == [
            {
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {
                    "notifications": {
                        "resourcesListChanged": True,
                        # what this server can serve, once each, in the order asked
                        "resourceSubscriptions": ["test://static-text", "test://template/9/data"],
                    },
                    "_meta": {"io.modelcontextprotocol/subscriptionId": "sub"},
                },
            }
        ]
        server.notify_resource_updated("test://template/9/data")
        server.notify_resource_updated("test://unknown")
        server.add_resource("late://x", "x")
        await anyio.sleep(0.05)
        frames = peer.take()
        stamp = {"io.modelcontextprotocol/subscriptionId": "sub"}
        assert frames == [
            {
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": {"uri": "test://template/9/data", "_meta": stamp},
            },
            {
                "jsonrpc": "2.0",
                "method": "notifications/resources/list_changed",
                "params": {"_meta": stamp},
            },
        ]
        from mcp_types import methods

        for frame in frames:
            methods.parse_server_notification(frame["method"], V, frame["params"])


async def test_the_modern_era_has_no_subscribe_methods() -> None:
    async with modern(_server()) as peer:
        for i, method in enumerate(["resources/subscribe", "resources/unsubscribe"]):
            reply = await peer.request(i, method, {"_meta": meta(), "uri": "test://static-text"})
            assert reply["error"] == {"code": -32601, "message": "Method not found", "data": method}


async def test_resources_before_initialize_are_refused_as_other_requests() -> None:
    async with session_for(_server()) as peer:
        reply = await peer.request(1, "resources/list")
        assert reply["error"]["data"] == "Received request before initialization"


async def test_read_resource_for_the_author() -> None:
    server = _server()
    contents = await server.read_resource("test://template/5/data")
    assert json.loads(contents[0]["text"])["id"] == 5
    from toolwire.protocol.wire.jsonrpc import ProtocolError

    with pytest.raises(ProtocolError) as missing:
        await server.read_resource("test://nope")
    assert missing.value.message == "Resource not found: test://nope"


@pytest.mark.parametrize(
    ("meta_value", "detail"),
    [
        ([], "resources/read: '_meta' must be an object"),
        ({"progressToken": None, "x": 1}, None),
        (
            {"progressToken": {"a": 1}},
            "resources/read: 'progressToken' must be a string or integer",
        ),
    ],
)
async def test_a_malformed_progress_token_is_invalid_params(meta_value: Any, detail: Any) -> None:
    async with handshake(_server()) as peer:
        params = {"uri": "test://static-binary", "_meta": meta_value}
        reply = await peer.request(1, "resources/read", params)
    if detail is None:  # no token: read as usual
        assert reply["result"]["contents"][0]["uri"] == "test://static-binary"
    else:
        assert reply["error"]["code"] == -32602, reply
        assert reply["error"]["data"] == detail


@pytest.mark.parametrize(
    ("uri", "name", "problem"),
    [
        ("users://..%2F..%2Fetc%2Fpasswd/profile", "name", "holds a '..' path segment"),
        ("users://%2E%2E/profile", "name", "holds a '..' path segment"),
        ("users://a%5C..%5Cb/profile", "name", "holds a '..' path segment"),
        ("users://a%00b/profile", "name", "holds a NUL byte"),
        ("walk://a/../../secret", "path", "holds a '..' path segment"),
        ("walk://x?q=..%2Fup", "q", "holds a '..' path segment"),
    ],
)
async def test_a_template_value_that_climbs_out_is_refused_naming_it(
    uri: str, name: str, problem: str
) -> None:
    # Failed before the fix: the function got '../../etc/passwd' as its one-segment `name`,
    # which a function joining it to a directory follows out of it.
    server = _server()
    seen: list[str] = []

    @server.resource("walk://{+path}{?q}")
    def walk(path: str, q: str = "") -> str:
        seen.append(path)
        return path

    async with handshake(server) as peer:
        reply = await _read(peer, uri)
    assert reply["error"] == {
        "code": -32602,
        "message": f"Refused resource URI {uri!r}: {name!r} {problem}",
        "data": {"uri": uri},
    }
    assert seen == []


async def test_template_values_with_dots_or_slashes_that_stay_put_are_read() -> None:
    server = _server()

    @server.resource("walk://{+path}")
    def walk(path: str) -> str:
        return path

    async with handshake(server) as peer:
        for index, (uri, value) in enumerate(
            [("walk://a..b/c...d/.hidden", "a..b/c...d/.hidden"), ("walk://v1/x", "v1/x")]
        ):
            reply = await _read(peer, uri, index)
            assert reply["result"]["contents"][0]["text"] == value
        reply = await _read(peer, "users://5%2F6/profile", 9)
        assert reply["result"]["contents"][0]["text"] == "profile of 5/6"


@pytest.mark.parametrize(
    ("method", "params", "error"),
    [
        ("resources/read", {"uri": "x://stop"}, "Error reading resource x://stop"),
        ("prompts/get", {"name": "stop"}, "Error rendering prompt 'stop'"),
        (
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "pick"}, "argument": {"name": "a"}},
            "Completion failed for argument 'a' of prompt 'pick'",
        ),
    ],
)
async def test_a_function_raising_cancelled_error_of_its_own_is_answered_as_a_failure(
    method: str, params: dict[str, Any], error: str
) -> None:
    # Failed before the fix: the CancelledError ended the request's task as if the client had
    # cancelled it, and the client waited for an answer that never came.
    server = Server("stops")

    @server.resource("x://stop")
    async def read_stop() -> str:
        raise asyncio.CancelledError

    @server.prompt
    async def stop() -> str:
        raise asyncio.CancelledError

    async def refuse(value: str, context: dict[str, str]) -> list[str]:
        raise asyncio.CancelledError

    @server.prompt(completers={"a": refuse})
    def pick(a: str) -> str:
        return a

    async with handshake(server) as peer:
        reply = await peer.request(1, method, params)
    assert reply["error"]["code"] == -32603
    assert reply["error"]["message"] == error


async def test_a_uri_too_long_to_keep_is_not_followed_in_either_era() -> None:
    # Failed before the fix: each subscription kept its URI whatever its length, so 1024
    # subscriptions of a message's 4 MiB each held 4 GiB (and an HTTP session stored them all).
    from toolwire.protocol.session.subscriptions import MAX_URI_LENGTH

    server = _server()
    longest = "users://" + "a" * (MAX_URI_LENGTH - len("users:///profile")) + "/profile"
    too_long = longest.replace("users://", "users://a")
    async with handshake(server) as peer:
        reply = await peer.request(1, "resources/subscribe", {"uri": too_long})
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid request parameters",
            "data": f"resources/subscribe: 'uri' is {MAX_URI_LENGTH + 1} characters long; "
            f"a URI of at most {MAX_URI_LENGTH} can be followed",
        }
        assert peer.session is not None and peer.session.resource_subscriptions == set()
        assert (await peer.request(2, "resources/subscribe", {"uri": longest}))["result"] == {}
    async with modern(server) as peer:
        notifications = {"resourceSubscriptions": [too_long, longest]}
        await peer.feed(
            {
                "jsonrpc": "2.0",
                "id": "sub",
                "method": "subscriptions/listen",
                "params": {"_meta": meta(), "notifications": notifications},
            }
        )
        (ack,) = peer.take()
        assert ack["params"]["notifications"] == {"resourceSubscriptions": [longest]}


@pytest.mark.parametrize("uri", [5, None, b"users://ann/profile"])
async def test_an_update_for_a_uri_that_is_no_string_is_refused_at_once(uri: Any) -> None:
    # Failed before the fix: it was taken without a word and reached no one (and a change bus
    # failed on it later, away from the author's call).
    server = _server()
    async with handshake(server) as peer:
        await peer.request(1, "resources/subscribe", {"uri": "users://ann/profile"})
        with pytest.raises(TypeError) as refused:
            server.notify_resource_updated(uri)
        assert str(refused.value) == (
            f"notify_resource_updated: uri must be a string, not {type(uri).__name__}"
        )
        server.notify_resource_updated("users://ann/profile")
        with anyio.fail_after(10):
            while not peer.notifications("notifications/resources/updated"):
                await anyio.sleep(0.01)
        assert peer.notifications("notifications/resources/updated") == [
            {"uri": "users://ann/profile"}
        ]
