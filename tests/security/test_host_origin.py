"""`HostOriginGuard` in front of a tiny app, served by uvicorn, probed with raw requests."""

from __future__ import annotations

import logging
from typing import Any

import httpx2
import pytest

from toolwire import Server
from toolwire.transports.http.security.host_origin import HostOriginGuard

from ._serve import echo_app, served


def post(url: str, **headers: str) -> httpx2.Response:
    return httpx2.post(url + "/mcp", content=b"{}", headers=headers, timeout=10)


def test_loopback_hosts_and_origins_pass_by_default() -> None:
    with served(HostOriginGuard(echo_app)) as url:
        port = url.rsplit(":", 1)[1]
        assert post(url).status_code == 200  # httpx2 sends Host: 127.0.0.1:port
        for host in (f"localhost:{port}", "localhost", f"[::1]:{port}", "LOCALHOST:1"):
            assert post(url, host=host).status_code == 200, host
        for origin in ("http://localhost:6274", "https://127.0.0.1", "http://[::1]:3000"):
            assert post(url, origin=origin).status_code == 200, origin
        assert post(url, origin=url).status_code == 200


def test_a_foreign_host_is_421_saying_what_to_set(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="toolwire"),
        served(HostOriginGuard(echo_app)) as url,
    ):
        reply = post(url, host="api.example.com:8000")
        again = post(url, host="api.example.com:8000")
    assert reply.status_code == 421
    assert reply.headers["content-type"] == "application/json"
    message = (
        "Host 'api.example.com:8000' is not allowed; pass allowed_hosts=['api.example.com'] "
        "to http_app()/run(), or --allowed-host api.example.com on the CLI"
    )
    assert reply.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": message},
    }
    assert again.status_code == 421
    logged = [r for r in caplog.records if r.name == "toolwire"]
    assert [r.getMessage() for r in logged] == [message]  # once per distinct value
    assert logged[0].levelno == logging.WARNING


def test_a_foreign_origin_is_403_saying_what_to_set(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="toolwire"),
        served(HostOriginGuard(echo_app)) as url,
    ):
        reply = post(url, origin="https://evil.example")
        null = post(url, origin="null")
    assert reply.status_code == 403
    message = (
        "Origin 'https://evil.example' is not allowed; pass "
        "allowed_origins=['https://evil.example'] to http_app()/run(), or --allowed-origin "
        "https://evil.example on the CLI"
    )
    assert reply.json()["error"] == {"code": -32600, "message": message}
    assert message in caplog.text
    assert null.status_code == 403


def test_a_rebinding_attack_is_refused() -> None:
    # The attacker's name resolves to 127.0.0.1: its page's requests carry its own Host.
    with served(HostOriginGuard(echo_app)) as url:
        reply = post(url, host="evil.example", origin="http://evil.example")
    assert reply.status_code == 421


def test_a_configured_host_allows_its_own_origin_and_any_port() -> None:
    guard = HostOriginGuard(echo_app, allowed_hosts=["API.example.com"])
    with served(guard) as url:
        assert post(url, host="api.example.com").status_code == 200
        assert post(url, host="api.example.com:8443").status_code == 200
        assert (
            post(url, host="api.example.com", origin="https://api.example.com").status_code == 200
        )
        # loopback is no longer allowed once hosts are configured
        assert post(url).status_code == 421
        # a page elsewhere is still cross-site
        assert (
            post(url, host="api.example.com", origin="https://app.example.com").status_code == 403
        )


def test_exact_ports_and_wildcard_ports() -> None:
    guard = HostOriginGuard(
        echo_app,
        allowed_hosts=["api.example.com:8443", "svc.internal:*", "[2001:db8::1]"],
        allowed_origins=["https://app.example.com:444"],
    )
    with served(guard) as url:
        assert post(url, host="api.example.com:8443").status_code == 200
        assert post(url, host="api.example.com:9000").status_code == 421
        assert post(url, host="api.example.com").status_code == 421
        assert post(url, host="svc.internal:1234").status_code == 200
        assert post(url, host="[2001:db8::1]:80").status_code == 200
        ok = post(url, host="svc.internal", origin="https://app.example.com:444")
        assert ok.status_code == 200
        wrong_port = post(url, host="svc.internal", origin="https://app.example.com")
        assert wrong_port.status_code == 403


def test_star_switches_each_check_off() -> None:
    guard = HostOriginGuard(echo_app, allowed_hosts=["*"], allowed_origins=["*"])
    with served(guard) as url:
        assert post(url, host="anything.example", origin="https://evil.example").status_code == 200
    hosts_only = HostOriginGuard(echo_app, allowed_hosts=["*"])
    with served(hosts_only) as url:
        assert post(url, host="anything.example").status_code == 200
        assert post(url, host="anything.example", origin="https://evil.example").status_code == 403


@pytest.mark.anyio
async def test_a_request_without_host_is_421() -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": []}
    await HostOriginGuard(echo_app)(scope, receive, send)
    assert sent[0]["status"] == 421
    assert b"no Host header" in sent[1]["body"]


@pytest.mark.anyio
async def test_lifespan_passes_through() -> None:
    seen: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    async def nothing() -> dict[str, Any]:
        return {}

    async def ignore(message: Any) -> None:
        return None

    await HostOriginGuard(app)({"type": "lifespan"}, nothing, ignore)
    assert seen == ["lifespan"]


@pytest.mark.parametrize(
    ("option", "entry", "problem"),
    [
        ("allowed_hosts", "https://api.example.com", "is not a host"),
        ("allowed_hosts", "api.example.com:https", "port that is not a number"),
        ("allowed_hosts", "", "is not a host name"),
        ("allowed_origins", "api.example.com", "is not an origin"),
        ("allowed_origins", "https://a.example/path", "is not an origin"),
    ],
)
def test_malformed_entries_are_refused_naming_them(option: str, entry: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as caught:
        HostOriginGuard(echo_app, **{option: [entry]})
    assert option in str(caught.value)


def test_control_characters_in_refused_values_are_escaped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="toolwire"),
        served(HostOriginGuard(echo_app)) as url,
    ):
        reply = post(url, origin="https://evil.example\tX")
    assert reply.status_code == 403
    assert "\\tX" in reply.json()["error"]["message"]
    assert "\t" not in caplog.text


def test_a_concrete_bind_address_joins_the_defaults_a_wildcard_does_not() -> None:
    with served(HostOriginGuard(echo_app, bind_host="10.1.2.3")) as url:
        assert post(url, host="10.1.2.3:8000").status_code == 200
        assert post(url).status_code == 200  # loopback still allowed
    for wildcard in ("0.0.0.0", "::"):
        with served(HostOriginGuard(echo_app, bind_host=wildcard)) as url:
            assert post(url, host="10.1.2.3:8000").status_code == 421
            assert post(url, host=wildcard).status_code == 421
    configured = HostOriginGuard(echo_app, allowed_hosts=["a.example"], bind_host="10.1.2.3")
    with served(configured) as url:
        assert post(url, host="10.1.2.3").status_code == 421  # an explicit list is the list


@pytest.mark.parametrize("kind", ["http_app", "sse_app"])
def test_one_host_or_origin_given_as_a_string_is_a_list_of_one(kind: str) -> None:
    # A string is one entry, never a list of its characters, however the app is built.
    server = Server("one-host")
    options: dict[str, Any] = {
        "allowed_hosts": "api.example.com",
        "allowed_origins": "https://app.example",
    }
    app = server.http_app(**options) if kind == "http_app" else server.sse_app(**options)
    with served(app, lifespan="on") as url:
        assert post(url, host="api.example.com").status_code not in (403, 421)
        passed = post(url, host="api.example.com", origin="https://app.example")
        assert passed.status_code not in (403, 421)
        assert post(url, host="other.example").status_code == 421
        assert post(url, host="api.example.com", origin="https://a.example").status_code == 403
