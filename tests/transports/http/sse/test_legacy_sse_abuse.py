"""The legacy SSE transport under bad input: every malformed request gets a 4xx (never a 500),
abandoned streams leave nothing behind, and the server keeps serving throughout."""

from __future__ import annotations

import random
import socket
from typing import Any

import anyio
import pytest
from tests.transports._uvicorn_thread import served
from tests.transports.http.sse.test_legacy_sse import Probe, _server, _until, opened

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _malformed(rng: random.Random, endpoint: str) -> tuple[str, str, dict[str, str], bytes]:
    """One bad request: (method, path, headers, body)."""
    path, _, query = endpoint.partition("?")
    json_type = {"content-type": "application/json"}
    choices: list[tuple[str, str, dict[str, str], bytes]] = [
        ("POST", path, json_type, b"{}"),
        ("POST", f"{path}?session_id=", json_type, b"{}"),
        ("POST", f"{path}?session_id={'z' * rng.randint(1, 80)}", json_type, b"{}"),
        ("POST", f"{path}?session_id={rng.randbytes(16).hex()}", json_type, b"{}"),
        ("POST", f"{path}?{query}", {"content-type": "text/html"}, b"{}"),
        ("POST", f"{path}?{query}", {"content-type": "application/jsonx"}, b"{}"),
        ("POST", f"{path}?{query}", json_type, rng.randbytes(rng.randint(1, 200))),
        ("POST", f"{path}?{query}", json_type, b"[" * 1999),
        ("POST", f"{path}?{query}", json_type, b"{" + b" " * 3000),
        ("PUT", f"{path}?{query}", json_type, b"{}"),
        ("DELETE", "/sse", {}, b""),
        ("POST", "/sse", json_type, b"{}"),
    ]
    return rng.choice(choices)


async def test_a_flood_of_malformed_requests_gets_4xx_and_the_session_still_serves() -> None:
    import httpx2

    server = _server(Probe())
    server.max_message_bytes = 2000
    app = server.sse_app()
    rng = random.Random(12)
    statuses: dict[int, int] = {}
    with served(app) as base:
        async with opened(base) as stream:
            await stream.initialize()
            async with httpx2.AsyncClient(timeout=10) as client:
                for _ in range(600):
                    method, path, headers, body = _malformed(rng, stream.endpoint)
                    response = await client.request(
                        method, base + path, headers=headers, content=body
                    )
                    statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                    if response.status_code >= 400:
                        assert response.json()["error"]["message"], response.text
            # A random body that happens to be JSON is the session's to answer (202).
            assert set(statuses) <= {202, 400, 404, 405, 413, 415}, statuses
            assert statuses.get(400, 0) > 100 and statuses.get(404, 0) > 10, statuses
            call = {"jsonrpc": "2.0", "id": "ok", "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}  # fmt: skip
            assert (await stream.post(call)).status_code == 202
            for _ in range(1000):  # the JSON the session answered comes first
                message = (await stream.next()).json()
                if message.get("id") == "ok":
                    break
            assert message["result"]["content"] == [{"type": "text", "text": "3"}]


async def test_streams_abandoned_at_every_step_leave_no_session_behind() -> None:
    app = _server(Probe()).sse_app()
    transport = app.transport
    with served(app) as base:
        port = int(base.rsplit(":", 1)[1])

        def raw(request: bytes, read: int) -> None:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(request)
                if read:
                    sock.recv(read)
            # closed here: the client vanished mid-stream

        requests: list[tuple[bytes, int]] = [
            (b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 0),
            (b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 20),
            (b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 4096),
            (b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\nabc", 10),
            (b"GET /sse HTT", 0),
        ]
        for index in range(200):
            request, read = requests[index % len(requests)]
            await anyio.to_thread.run_sync(raw, request, read)
        await _until(lambda: transport.open_sessions == 0, "every abandoned session ended")
        async with opened(base) as stream:
            reply: dict[str, Any] = await stream.initialize()
            assert reply["result"]["serverInfo"]["name"] == "sse-probe"
            assert transport.open_sessions == 1


async def test_a_client_that_stops_reading_is_slowed_then_refused_and_loses_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import httpx2

    from toolwire.transports.http.sse import transport as legacy_sse

    monkeypatch.setattr(legacy_sse, "BUSY_SECONDS", 0.5)
    server = _server(Probe())

    @server.tool
    def big(index: int) -> str:
        """Two megabytes of text."""
        return str(index) * 2_000_000

    statuses: list[int] = []
    with served(server.sse_app()) as base:
        async with opened(base) as stream:
            await stream.initialize()
            async with httpx2.AsyncClient(timeout=30) as client:
                # The stream is not read meanwhile: replies pile up until POSTs are refused.
                for index in range(1, 31):
                    call = {"jsonrpc": "2.0", "id": index, "method": "tools/call",
                            "params": {"name": "big", "arguments": {"index": index % 10}}}  # fmt: skip
                    response = await client.post(base + stream.endpoint, json=call)
                    statuses.append(response.status_code)
                    if response.status_code == 503:
                        assert "backlog is full" in response.json()["error"]["message"]
                        break
            assert statuses[-1] == 503, statuses
            assert set(statuses[:-1]) == {202}
            # Reading again delivers every accepted call's reply, whole.
            answered = set()
            for _ in range(len(statuses) + 10):
                message = (await stream.next()).json()
                text = message["result"]["content"][0]["text"]
                assert text == str(message["id"] % 10) * 2_000_000
                answered.add(message["id"])
                if len(answered) == len(statuses) - 1:
                    break
            assert answered == set(range(1, len(statuses)))
