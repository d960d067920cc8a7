"""A `Host` (and an `Origin`'s authority) passes only as exactly `name[:port]`.

Forged values that put an allowed name in front of something else (`127.0.0.1:8000@evil`,
`[::1]x`, a port of non-ASCII digits) are refused over a real socket with the documented 421
(403 for an Origin), saying what the header should look like. Hypothesis then compares the
guard's verdict on any header value with a small reference parser written apart from it.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolwire.transports.http.security.host_origin import HostOriginGuard

from ._serve import echo_app, served

SHAPE = "a Host header is name[:port], the port in digits and an IPv6 address in brackets"


def _raw_post(url: str, host: bytes, origin: bytes | None = None) -> tuple[int, dict[str, Any]]:
    port = int(url.rsplit(":", 1)[1])
    head = b"POST /mcp HTTP/1.1\r\nHost: " + host + b"\r\nContent-Length: 2\r\n"
    if origin is not None:
        head += b"Origin: " + origin + b"\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head + b"Connection: close\r\n\r\n{}")
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    status_line, _, rest = raw.partition(b"\r\n")
    status = int(status_line.split()[1])
    body = rest.partition(b"\r\n\r\n")[2]
    return status, json.loads(body) if status != 200 else {}  # a refusal's body is JSON


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with served(HostOriginGuard(echo_app)) as base:
        yield base


FORGED_HOSTS = [
    b"127.0.0.1:8000@evil.example",
    b"localhost:80@evil.example:80",
    b"[::1]@evil.example",
    b"[::1]@80",
    b"[::1]x",
    b"[::1]:80x",
    b"localhost:\xb2",  # a superscript two (latin-1): a digit to str.isdigit, not a port
    "localhost:\u0663".encode(),  # an Arabic-Indic three: a decimal digit, not ASCII
    b"localhost:8000x",
    b"localhost:",
    b"localhost:123456",
    b"localhost:99999",
    b"127.0.0.1:80:80",
    b"user@localhost",
    b"localhost/evil",
    b"[localhost]",
    b"",
]


@pytest.mark.parametrize("host", FORGED_HOSTS, ids=lambda h: h.decode("latin-1"))
def test_a_forged_host_is_421_saying_what_a_host_is(url: str, host: bytes) -> None:
    status, body = _raw_post(url, host)
    assert status == 421, body
    assert body["error"]["code"] == -32600
    assert SHAPE in body["error"]["message"]


@pytest.mark.parametrize(
    "origin",
    [
        b"http://127.0.0.1:8000@evil.example",
        b"http://[::1]@evil.example",
        b"http://[::1]@80",
        b"http://localhost:\xb2",
        b"http://localhost:80/evil",
        b"1http://localhost",
    ],
    ids=lambda o: o.decode("latin-1"),
)
def test_a_forged_origin_is_403(url: str, origin: bytes) -> None:
    status, body = _raw_post(url, b"localhost:8000", origin)
    assert status == 403, body
    assert "is not allowed" in body["error"]["message"]


def test_well_formed_hosts_still_pass() -> None:
    with served(HostOriginGuard(echo_app, allowed_hosts=["a-b.example_x~", "::1"])) as base:
        for host in (b"A-B.example_x~:65535", b"[::1]", b"[::1]:1", b"a-b.example_x~"):
            status, body = _raw_post(base, host)
            assert status == 200, (host, body)


# -- the reference: the grammar as a regular expression, the decision as a set lookup ------

_REFERENCE = re.compile(
    r"(?P<name>\[[0-9a-f.]*:[0-9a-f.:]*\]|[a-z0-9._~-]+)(?::(?P<port>[0-9]{1,5}))?", re.ASCII
)
ANY_PORT = {"localhost", "127.0.0.1", "[::1]", "a.example"}
EXACT = {"b.example:8443", "[::2]:80"}
GUARD = HostOriginGuard(echo_app, allowed_hosts=[*ANY_PORT, *EXACT])


def reference_allows(raw: bytes) -> bool:
    text = raw.decode("latin-1").strip(" \t").lower()
    match = _REFERENCE.fullmatch(text)
    if match is None:
        return False
    port = match["port"]
    if port is not None and int(port) > 65535:
        return False
    return match["name"] in ANY_PORT or text in EXACT


def guard_allows(guard: HostOriginGuard, raw: bytes) -> bool:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": [(b"host", raw)]}
    asyncio.run(guard(scope, receive, send))
    status = sent[0]["status"]
    assert status in (200, 421), status
    return bool(status == 200)


_ODD = ["\xb2", "\u0663", "\xa0", " ", "\t", "x", "0", "65536", "::", ".", "LOCALHOST", "_~-"]
_PIECES = st.sampled_from(
    [*sorted(ANY_PORT), "b.example", "[::2]", ":", ":8443", ":80", "@", "[", "]", "/", *_ODD]
)
# A name, something after it, then what might be a port: where forgeries hide.
_SHAPED = st.tuples(
    st.sampled_from([*sorted(ANY_PORT), "b.example", "[::2]", "[::1", "::1", ""]),
    st.sampled_from([":", "@", "", "]", "x", "::", ":@", "/"]),
    st.text(alphabet="0123456789\xb2\u0663@:x.", max_size=7),
).map("".join)
HOSTS = st.one_of(
    _SHAPED,
    st.lists(_PIECES, max_size=6).map("".join),
    st.text(alphabet="[]:.@0123456789abcdefx\xb2 ", max_size=24),
    st.text(max_size=12),
).map(lambda text: text.encode("utf-8"))


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTS)
@example(b"127.0.0.1:8000@evil.example")
@example(b"[::1]@evil.example")
@example(b"[::1]@0")
@example(b"b.example:8443")
@example(b"b.example:08443")
def test_the_host_check_agrees_with_the_reference(raw: bytes) -> None:
    assert guard_allows(GUARD, raw) == reference_allows(raw), raw
