"""Malformed requests against a live streamable-HTTP server (bounded in count and time).

A real `toolwire` server process on 127.0.0.1 (tests/transports/http/_fuzz_server.py), in
stateless JSON mode and in session mode with SSE answers, gets thousands of bad requests
over raw sockets: bodies that are not JSON, not JSON-RPC, or JSON-RPC with wrong types in
every field (the stdio fuzz's generators and its oracle, plus its hand-picked corpus), and
requests with one bad header each: Content-Type, Accept, MCP-Protocol-Version, missing and
unknown session ids, unsupported methods, foreign Host and Origin, bytes beyond ASCII in
any of them; and sessions presented after they expired, after DELETE, or by another
authenticated caller. Each gets the 4xx the transport spec names, with a JSON-RPC error
body saying what was wrong; nothing is ever a 500 (the server's log is read for errors no
client saw); a valid call succeeds after every batch. Generation is seeded (random.Random,
Hypothesis derandomized): a failure repeats. Over 7,000 requests in all (-s prints them).
"""

from __future__ import annotations

import contextlib
import random
import string
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.fuzz.test_stdio_fuzz import _fixed_corpus, frames
from tests.fuzz.wire import PARSE_ERROR, Ambiguous
from tests.transports.http._live import (
    ACCEPT_BOTH,
    VERSION,
    LiveServer,
    RawClient,
    add_call,
    assert_adds,
    mcp_headers,
    open_session,
)
from tests.transports.http._verdicts import (
    assert_refused,
    assert_refused_or_unparsed,
    check_body,
    describe,
    server_failures,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

MODES = {"stateless-json": ("--stateless", "--json-response"), "session-sse": ()}
SUPPORTED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN = "2026-07-28"  # another era, served by its own code: never sent as a "bad" version
VISIBLE = string.ascii_letters + string.digits + string.punctuation + " "


@pytest.fixture(scope="module", params=list(MODES))
def live(request: pytest.FixtureRequest) -> Iterator[tuple[str, LiveServer, RawClient]]:
    with LiveServer(*MODES[request.param]) as server, RawClient(server.port) as client:
        yield request.param, server, client
        assert server.alive(), "the server died"
        assert not server_failures(server.log()), server.log()[-5000:]


def _session(mode: str, client: RawClient) -> str | None:
    return None if mode == "stateless-json" else open_session(client)


def _still_serving(server: LiveServer, client: RawClient, session: str | None) -> None:
    assert server.alive(), "the server died"
    assert_adds(client, session)
    failures = server_failures(server.log())
    assert not failures, "\n".join(failures[:20]) + "\n" + server.log()[-3000:]


# ---------------------------------------------------------------- bodies


def test_malformed_bodies(live: tuple[str, LiveServer, RawClient]) -> None:
    mode, server, client = live
    session = _session(mode, client)
    sent = 0

    def post(body: bytes) -> None:
        nonlocal sent
        reply = client.request("POST", mcp_headers(session), body)
        sent += 1
        with contextlib.suppress(Ambiguous):
            check_body(body, reply)

    for body in [*_fixed_corpus(), b"", b"\r\n", b"\x00" * 16]:
        post(body)
    _still_serving(server, client, session)

    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(frames, min_size=50, max_size=70))
    def generated(group: list[bytes]) -> None:
        for body in group:
            post(body)

    generated()
    _still_serving(server, client, session)
    print(f"{mode}: {sent} malformed bodies")
    assert sent >= 1400, sent


# ---------------------------------------------------------------- headers


def _junk(rng: random.Random, size: int = 24) -> str:
    text = "".join(rng.choice(VISIBLE) for _ in range(rng.randint(1, size)))
    return text.strip() or "x"


def _bad_content_types(rng: random.Random, count: int) -> Iterator[str | None]:
    fixed = [
        None,
        "",
        "text/plain",
        "application/jsonl",
        "application/json-rpc",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "text/event-stream",
        "application/*",
        "*/*",
        "json",
        "application/ json",
        "application/json+x",
    ]
    yield from fixed
    for _ in range(count - len(fixed)):
        value = _junk(rng)
        if value.split(";", 1)[0].strip().lower() != "application/json":
            yield value


def _bad_accepts(rng: random.Random, count: int, json_only: bool) -> Iterator[str]:
    """`Accept` values that allow no answer the endpoint can give: neither JSON nor (unless
    `json_only`) an event stream. A missing or empty `Accept` allows anything (RFC 9110),
    and a client accepting only one of the two gets that one."""
    others = ["text/html", "application/xml", "image/png", "text/plain", "application/jsonl"]
    if json_only:
        others += ["text/event-stream", "text/*"]
    fixed = [*others, "application/json-seq", "image/*", "text/html;q=0.9, image/png"]
    yield from fixed
    for _ in range(count - len(fixed)):
        kinds = rng.sample(others, rng.randint(1, 3))
        if rng.random() < 0.3:
            kinds = [f"{kind};q=0.{rng.randint(1, 9)}" for kind in kinds]
        yield ", ".join(kinds)


def _bad_versions(rng: random.Random, count: int) -> Iterator[str]:
    fixed = ["", "latest", "2025-11-26", "2024-11-04", "2025-6-18", "2025-06-18x", "1.0", "0"]
    yield from fixed
    for _ in range(count - len(fixed)):
        if rng.random() < 0.5:
            value = f"{rng.randint(1990, 2100)}-{rng.randint(0, 19):02}-{rng.randint(0, 39):02}"
        else:
            value = _junk(rng)
        if value not in SUPPORTED and value != MODERN:
            yield value


def _unknown_session_ids(rng: random.Random, count: int) -> Iterator[str]:
    for i in range(count):
        if i % 3 == 0:
            yield "".join(rng.choice("0123456789abcdef") for _ in range(32))
        elif i % 3 == 1:
            yield _junk(rng, 64)
        else:
            yield "x" * rng.randint(100, 2000)


def test_bad_headers(live: tuple[str, LiveServer, RawClient]) -> None:
    mode, server, client = live
    rng = random.Random(f"headers-{mode}")
    json_only = mode == "stateless-json"
    session = _session(mode, client)
    sent = 0

    def refused(
        headers: list[tuple[str, str]], status: int, what: str, method: str = "POST"
    ) -> str:
        nonlocal sent
        body = add_call() if method == "POST" else b""
        reply = client.request(method, headers, body)
        sent += 1
        context = f"{what}: {headers} {describe(body, reply)}"
        return assert_refused(reply, status, context=context)

    def without(name: str, value: str | None) -> list[tuple[str, str]]:
        headers = [(k, v) for k, v in mcp_headers(session) if k != name]
        return headers if value is None else [(name, value), *headers]

    for value in _bad_content_types(rng, 260):
        message = refused(without("Content-Type", value), 415, "Content-Type")
        assert "application/json" in message
    _still_serving(server, client, session)

    for value in _bad_accepts(rng, 260, json_only):
        message = refused(without("Accept", value), 406, "Accept")
        assert "application/json" in message
    for value in (None, "", "*/*", "application/json"):  # these are answered, as JSON
        reply = client.request("POST", without("Accept", value), add_call(3))
        assert reply.status == 200, describe(add_call(3), reply)
        assert reply.headers["content-type"] == "application/json", reply.headers
    _still_serving(server, client, session)

    # A version of neither era: 400 with a JSON-RPC error (which era's error it is, and so
    # whether it carries the request's id, is the modern era's call: any version but a
    # handshake-era one goes there). test_unsupported_version_names_the_supported_ones
    # checks the message.
    for value in _bad_versions(rng, 260):
        headers = without("MCP-Protocol-Version", value)
        reply = client.request("POST", headers, add_call())
        sent += 1
        context = f"protocol version {value!r}: {describe(add_call(), reply)}"
        assert reply.status == 400, context
        error = reply.json()["error"]
        assert isinstance(error["code"], int) and error["message"].strip(), context
        assert reply.json()["id"] in (None, 1), context
    _still_serving(server, client, session)

    methods = ["PUT", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND"]
    for i in range(100):
        method = methods[i] if i < len(methods) else "".join(rng.choices("ABCDEFGHKLMNXYZ", k=5))
        reply = client.request(method, mcp_headers(session), add_call())
        sent += 1
        context = f"method {method}: {describe(add_call(), reply)}"
        assert_refused_or_unparsed(reply, 405, context=context)
    _still_serving(server, client, session)

    if mode == "session-sse":
        for method in ("GET", "DELETE"):
            for _ in range(25):
                refused(mcp_headers(None), 400, f"no session id ({method})", method=method)
        # A POST without one is served on its own (OpenAI's clients drop the id).
        served = client.request("POST", mcp_headers(None), add_call())
        assert served.status == 200, describe(add_call(), served)
        assert served.messages()[-1]["result"]["content"][0]["text"] == "5"
        for value in _unknown_session_ids(rng, 240):
            refused(mcp_headers(value), 404, "unknown session id")
            refused(mcp_headers(value), 404, "unknown session id (GET)", method="GET")
            refused(mcp_headers(value), 404, "unknown session id (DELETE)", method="DELETE")
        for value in _bad_accepts(rng, 40, json_only=False):
            headers = [(k, v) for k, v in mcp_headers(session) if k != "Accept"]
            refused([("Accept", value), *headers], 406, "GET Accept", method="GET")
    else:
        for method in ("GET", "DELETE"):
            for _ in range(20):
                refused(mcp_headers(None), 405, f"{method} in stateless mode", method=method)
    _still_serving(server, client, session)

    # Header values with bytes beyond ASCII (HTTP's obs-text, which the parser lets through).
    names = ["Accept", "Content-Type", "MCP-Protocol-Version", "Mcp-Session-Id", "Host"]
    names += ["Origin", "Authorization", "Last-Event-ID", "Mcp-Method", "Mcp-Name"]
    high = [*range(0x21, 0x7F), *range(0x80, 0x100)]
    for i in range(300):
        name = names[i % len(names)]
        value = bytes(rng.choice(high) for _ in range(rng.randint(1, 20)))
        body = add_call()
        kept = [(k, v) for k, v in mcp_headers(session) if k.lower() != name.lower()]
        head = client.head("POST", "/mcp", kept, host=None if name == "Host" else "")
        data = head[:-2] + name.encode() + b": " + value + b"\r\n"
        data += f"Content-Length: {len(body)}\r\n\r\n".encode() + body
        client.close()
        client.connect().sendall(data)
        reply = client.read_reply()
        client.close()
        sent += 1
        context = f"{name}: {value!r} -> {reply}"
        assert reply.status < 500, context
        if reply.status >= 400:  # a JSON-RPC error: id null, or the request's (modern era)
            assert reply.headers.get("content-type") == "application/json", context
            answer = reply.json()
            assert answer["id"] in (None, 1) and answer["error"]["message"].strip(), context
    _still_serving(server, client, session)
    print(f"{mode}: {sent} requests with a bad header")
    assert sent >= 900, sent


# ---------------------------------------------------------------- Host and Origin


def _foreign_hosts(rng: random.Random, count: int) -> Iterator[str]:
    fixed = [
        "evil.example",
        "evil.example:80",
        "127.0.0.1.evil.example",
        "localhost.evil.example",
        "localhost.",
        "10.0.0.1",
        "0.0.0.0",
        "[::2]",
        "127.0.0.2",
        "example.com:8000",
    ]
    yield from fixed
    for _ in range(count - len(fixed)):
        label = "".join(rng.choices(string.ascii_lowercase + string.digits, k=rng.randint(1, 12)))
        yield f"{label}.{rng.choice(['example', 'test', 'invalid'])}" + (
            f":{rng.randint(1, 65535)}" if rng.random() < 0.5 else ""
        )


def test_foreign_host_and_origin(live: tuple[str, LiveServer, RawClient]) -> None:
    mode, server, client = live
    rng = random.Random(f"host-origin-{mode}")
    session = _session(mode, client)
    sent = 0
    for host in _foreign_hosts(rng, 150):
        reply = client.request("POST", mcp_headers(session), add_call(), host=host)
        sent += 1
        assert_refused(reply, 421, context=f"Host {host}: {describe(add_call(), reply)}")
    _still_serving(server, client, session)
    origins = ["null", "http://evil.example", "https://localhost.evil.example", "file://"]
    origins += [f"http://{host}" for host in _foreign_hosts(rng, 146)]
    for origin in origins:
        headers = [*mcp_headers(session), ("Origin", origin)]
        reply = client.request("POST", headers, add_call())
        sent += 1
        assert_refused(reply, 403, context=f"Origin {origin}: {describe(add_call(), reply)}")
    # The loopback names and same-host origins stay allowed.
    for host in (f"localhost:{server.port}", f"127.0.0.1:{server.port}"):
        assert_adds(client, session, [("Origin", f"http://{host}")])
    _still_serving(server, client, session)
    print(f"{mode}: {sent} requests with a foreign Host or Origin")
    assert sent >= 300, sent


# ---------------------------------------------------------------- sessions


def test_expired_ended_and_foreign_sessions() -> None:
    """Sessions end (idle expiry, DELETE) and belong to their creator: 404 for the rest."""
    alice = [("Authorization", "Bearer alice-token")]
    bob = [("Authorization", "Bearer bob-token")]
    # Each session is checked right after it is opened: a session opened early and used only
    # after its idle timeout had passed (a loaded machine) would be gone for the wrong reason.
    with LiveServer("--auth", "--idle-timeout", "5") as server, RawClient(server.port) as client:
        sent = 0
        expired: list[str] = []
        for n in range(20):
            session = open_session(client, alice)
            for method in ("POST", "GET", "DELETE"):
                reply = client.request(method, mcp_headers(session) + bob, add_call())
                sent += 1
                assert_refused(reply, 404, context=f"bob uses alice's {session} ({method})")
            assert_adds(client, session, alice)  # still alice's
            if n >= 10:
                expired.append(session)
                continue
            assert client.request("DELETE", mcp_headers(session) + alice).status == 200
            for method in ("POST", "GET", "DELETE"):
                reply = client.request(method, mcp_headers(session) + alice, add_call())
                sent += 1
                assert_refused(reply, 404, context=f"{session} after DELETE ({method})")
        for _ in range(10):  # idle timeout 5 s; asking about a session makes it active again
            time.sleep(6)
            reply = client.request("POST", mcp_headers(expired[0]) + alice, add_call())
            sent += 1
            if reply.status == 404:
                break
        for session in expired:
            for method in ("POST", "GET", "DELETE"):
                reply = client.request(method, mcp_headers(session) + alice, add_call())
                sent += 1
                assert_refused(reply, 404, context=f"{session} after expiry ({method})")
        fresh = open_session(client, bob)
        assert_adds(client, fresh, bob)
        for headers in ([], [("Authorization", "Bearer nope")]):
            reply = client.request("POST", mcp_headers(fresh) + headers, add_call())
            sent += 1
            assert reply.status == 401, describe(add_call(), reply)
            assert "bearer" in reply.headers.get("www-authenticate", "").lower(), reply.headers
        assert not server_failures(server.log()), server.log()[-5000:]
    print(f"{sent} requests with expired, ended or foreign sessions")


def test_no_version_header_is_served_as_2025_03_26(
    live: tuple[str, LiveServer, RawClient],
) -> None:
    """The spec's fallback for a missing header is a version, not a refusal."""
    mode, _server, client = live
    session = _session(mode, client)
    headers = [(k, v) for k, v in mcp_headers(session) if k != "MCP-Protocol-Version"]
    reply = client.request("POST", headers, add_call(5))
    assert reply.status == 200, describe(add_call(5), reply)
    assert reply.messages()[-1]["result"]["content"][0]["text"] == "5"
    reply = client.request("POST", mcp_headers(session, accept=ACCEPT_BOTH, version=VERSION), b"{")
    assert_refused(reply, 400, PARSE_ERROR, context=describe(b"{", reply))


@pytest.mark.parametrize("version", ["1999-01-01", "2025-11-26", "latest"])
def test_unsupported_version_names_the_supported_ones(
    live: tuple[str, LiveServer, RawClient], version: str
) -> None:
    """A client sending a version no era serves is told which versions are served (the
    handshake era's newest at least), not about some other defect of its request."""
    mode, _server, client = live
    session = _session(mode, client)
    reply = client.request("POST", mcp_headers(session, version=version), add_call())
    context = describe(add_call(), reply)
    assert reply.status == 400, context
    message = reply.json()["error"]["message"]
    assert version in message and "2025-11-25" in message, context
