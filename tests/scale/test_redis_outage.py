"""Redis going away under a running toolwire process (`--redis URL`): requests that need it
get a 503 whose JSON-RPC error names the store and what failed, within the store's timeout
(never a 500, never a hang); sessions the process holds go on being served; the outage is
logged once; once Redis is back, new sessions are made again."""

from __future__ import annotations

import signal
import time

import httpx2 as httpx
import pytest
from tests.redis._server import start_redis
from tests.scale._infra import start_backend
from tests.scale._shared import ACCEPT, TARGET, call, initialize, request, result_text

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "outage", "version": "1"},
}


def _initialize_raw(url: str) -> httpx.Response:
    return httpx.post(url, content=request("initialize", INIT), headers=ACCEPT, timeout=30)


def _wait_for_log(backend: object, text: str) -> str:
    deadline = time.monotonic() + 10
    log = ""
    while time.monotonic() < deadline:
        log = backend.log_text()  # type: ignore[attr-defined]
        if text in log:
            break
        time.sleep(0.05)
    return log


def test_redis_killed_then_back(tmp_path: object) -> None:
    redis = start_redis()
    server = start_backend(TARGET, args=["--redis", redis.url])
    held = initialize(server.url, client="held")
    assert result_text(call(server.url, held, "client_name")) == f"{server.pid}:held"

    redis.kill()
    # A new session needs its record written: refused, naming the store and the failure.
    refused = _initialize_raw(server.url)
    assert refused.status_code == 503, refused.text
    error = refused.json()["error"]
    assert error["code"] == -32603
    assert error["message"].startswith(
        f"Service Unavailable: Redis session store at {redis.url}: save session "
    )
    assert "failed: ConnectionError" in error["message"]
    assert refused.headers["retry-after"] == "1"
    # A session this process does not hold needs its record loaded: refused the same way.
    unknown = call(server.url, "0" * 32, "whoami")
    assert unknown.status_code == 503, unknown.text
    assert f"Redis session store at {redis.url}: load session {'0' * 32} failed" in unknown.text
    # The session it holds goes on (its stream's events are not stored meanwhile).
    for n in range(3):
        answer = call(server.url, held, "whoami", {"n": n})
        assert answer.status_code == 200, answer.text
        assert result_text(answer) == f"{server.pid}:{n}"
    log = _wait_for_log(server, "further failures are logged at DEBUG")
    assert log.count("further failures are logged at DEBUG") == 1, log  # one line per outage
    assert "Traceback" not in log

    back = start_redis(port=redis.port)  # empty: no persistence
    # As the 503's Retry-After says: the store is tried again at most a second later.
    deadline = time.monotonic() + 10
    answer = _initialize_raw(server.url)
    while answer.status_code == 503 and time.monotonic() < deadline:
        time.sleep(0.2)
        answer = _initialize_raw(server.url)
    assert answer.status_code == 200, answer.text
    fresh = answer.headers["mcp-session-id"]
    assert result_text(call(server.url, fresh, "client_name")) == f"{server.pid}:outage"
    assert result_text(call(server.url, held, "client_name")) == f"{server.pid}:held"
    assert "answers again" in _wait_for_log(server, "answers again")
    server.stop()
    back.stop()


def test_a_redis_that_stops_answering_gives_503_within_the_timeout() -> None:
    redis = start_redis()
    server = start_backend(TARGET, args=["--redis", redis.url])
    try:
        held = initialize(server.url)  # the pool holds a connection
        redis.process.send_signal(signal.SIGSTOP)  # connected, silent
        refused = _initialize_raw(server.url)
        assert refused.status_code == 503, refused.text
        message = refused.json()["error"]["message"]
        assert f"Redis session store at {redis.url}: save session " in message
        assert "no answer within 2 s" in message
        # The session held here is still served (its events go out without ids).
        for n in range(3):
            answer = call(server.url, held, "whoami", {"n": n})
            assert answer.status_code == 200, answer.text
            assert result_text(answer) == f"{server.pid}:{n}"
    finally:
        redis.process.send_signal(signal.SIGCONT)
        server.stop()
        redis.stop()
    answer_log = server.log_text()
    assert "Traceback" not in answer_log
