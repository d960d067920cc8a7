"""2026-07-28 era across processes: the first round of an input-required call is served by
one toolwire process and its retry by ANOTHER. The retry completes there when both processes
share `TOOLWIRE_REQUEST_STATE_KEY`, and is refused with -32602 "Invalid or expired
requestState" when each has its own random key (the default).

Each request is sent straight to a chosen process (not through a balancer), so which process
serves which round is known rather than left to chance; a balancer in front changes nothing
about the state, which travels in the request body.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx2
import pytest
from tests.scale._infra import Backend, start_backend

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

TARGET = "tests.scale.servers.scale_server:server"
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    "io.modelcontextprotocol/clientInfo": {"name": "scale-test", "version": "1"},
}


def _call_greet(backend: Backend, request_id: int, **extra: Any) -> dict[str, Any]:
    params = {"name": "greet", "arguments": {}, "_meta": ENVELOPE, **extra}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "greet",
    }
    response = httpx2.post(backend.url, headers=headers, content=json.dumps(message), timeout=30)
    assert response.headers["content-type"].startswith("application/json"), response.text
    reply: dict[str, Any] = response.json()
    assert reply["id"] == request_id, reply
    return reply


def _two_processes(env: Mapping[str, str] | None) -> tuple[Backend, Backend]:
    flags = ("--stateless", "--json-response")
    return start_backend(TARGET, env=env, args=flags), start_backend(TARGET, env=env, args=flags)


def _first_round(asked: Backend) -> str:
    first = _call_greet(asked, 1)["result"]
    assert first["resultType"] == "input_required", first
    assert list(first["inputRequests"]) == ["user_name"], first
    state: str = first["requestState"]
    return state


def _answers() -> dict[str, Any]:
    return {"user_name": {"action": "accept", "content": {"name": "Ada"}}}


def test_a_shared_key_lets_another_process_finish_the_call() -> None:
    asked, finisher = _two_processes({"TOOLWIRE_REQUEST_STATE_KEY": "one key for the fleet"})
    state = _first_round(asked)
    retry = _call_greet(finisher, 2, inputResponses=_answers(), requestState=state)
    result = retry["result"]
    assert result["resultType"] == "complete", result
    assert result["content"] == [{"type": "text", "text": f"Hello, Ada, from {finisher.pid}"}], (
        result
    )


def test_without_a_shared_key_the_other_process_refuses_the_state() -> None:
    # Each process draws its own random key, as when the variable is not set.
    asked, other = _two_processes({"TOOLWIRE_REQUEST_STATE_KEY": ""})
    state = _first_round(asked)
    refused = _call_greet(other, 2, inputResponses=_answers(), requestState=state)
    assert "result" not in refused, refused
    error = refused["error"]
    assert error["code"] == -32602, error
    assert error["message"] == "Invalid or expired requestState", error
    assert "seal does not match" in error["data"]["reason"], error
    # The process that sealed the state still takes it: the refusal is about the key.
    accepted = _call_greet(asked, 3, inputResponses=_answers(), requestState=state)
    assert accepted["result"]["content"][0]["text"] == f"Hello, Ada, from {asked.pid}"
