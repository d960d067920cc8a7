"""A client's answer to a question a call asked (`ctx.elicit`) that reaches another app of the
deployment is passed to the app whose call waits for it, over the Redis change bus; an
answer too large for the bus becomes an error answer, and one nobody waits for is dropped.

Two apps in this process share a real Redis (the processes version, through nginx, is in
tests/scale/test_redis_answers.py)."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2 as httpx
import pytest
from tests._jsonrpc import ACCEPT_HEADERS as ACCEPT
from tests._jsonrpc import INITIALIZED, initialize_request
from tests.redis._server import RedisServer
from tests.scale._shared import sse_messages
from tests.transports.http._http_harness import serving

from toolwire import Server, ToolContext
from toolwire.errors import ClientResponseError
from toolwire.redis import RedisBackplane
from toolwire.transports.http._runtime import MAX_FORWARDED_BYTES

FORM = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}


def _app(url: str) -> Any:
    server = Server("asking")

    @server.tool
    async def ask(ctx: ToolContext[Any]) -> str:
        """Ask for a word."""
        try:
            answer = await ctx.elicit("a word?", FORM, timeout=30)
        except ClientResponseError as error:
            return f"refused: {error}"
        return f"{answer.action}:{len(str(answer.content))}:{str(answer.content)[:40]}"

    return server.http_app(
        backplane=RedisBackplane(url, prefix="answers"),
        resumable=False,
        max_body_bytes=4 * MAX_FORWARDED_BYTES,
    )


async def _open(client: httpx.AsyncClient, base: str) -> dict[str, str]:
    init = initialize_request(capabilities={"elicitation": {}})
    made = await client.post(f"{base}/mcp", json=init, headers=ACCEPT)
    assert made.status_code == 200, made.text
    headers = {**ACCEPT, "mcp-session-id": made.headers["mcp-session-id"]}
    done = await client.post(f"{base}/mcp", json=INITIALIZED, headers=headers)
    assert done.status_code == 202, done.text
    return headers


async def _ask_here_answer_there(one: str, two: str, content: Any) -> tuple[str, str]:
    """Call `ask` on `one`, answer its question on `two`; return the question's id and the
    call's result text."""
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ask"}}
    question_id = ""
    with anyio.fail_after(60):
        async with httpx.AsyncClient(timeout=60) as client:
            headers = await _open(client, one)
            async with client.stream("POST", f"{one}/mcp", json=call, headers=headers) as stream:
                async for message in sse_messages(stream):
                    if message.get("method") == "elicitation/create":
                        question_id = message["id"]
                        answer = {
                            "jsonrpc": "2.0",
                            "id": question_id,
                            "result": {"action": "accept", "content": content},
                        }
                        there = await client.post(f"{two}/mcp", json=answer, headers=headers)
                        assert there.status_code == 202, there.text
                    elif message.get("id") == 7:
                        return question_id, str(message["result"]["content"][0]["text"])
    raise AssertionError("the call's stream ended without its result")


def test_an_answer_reaching_the_other_app_is_passed_to_the_waiting_call(
    redis_server: RedisServer,
) -> None:
    with serving(_app(redis_server.url)) as one, serving(_app(redis_server.url)) as two:
        question_id, text = anyio.run(_ask_here_answer_there, one, two, {"word": "elsewhere"})
    # The id names the copy that asked (`tw-<copy>-<n>`): copies never share one.
    assert question_id.startswith("tw-") and question_id.count("-") == 2, question_id
    assert text == "accept:21:{'word': 'elsewhere'}"


def test_an_answer_too_large_for_the_bus_becomes_an_error_for_the_call(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    word = "x" * (MAX_FORWARDED_BYTES + 10)
    with serving(_app(redis_server.url)) as one, serving(_app(redis_server.url)) as two:
        _, text = anyio.run(_ask_here_answer_there, one, two, {"word": word})
    assert "too large to pass on" in text, text
    assert f"at most {MAX_FORWARDED_BYTES} bytes" in text, text
    assert any("over the 1048576 the change bus carries" in r.getMessage() for r in caplog.records)


def test_an_answer_nobody_waits_for_is_dropped(redis_server: RedisServer) -> None:
    async def scenario(one: str, two: str) -> list[int]:
        statuses = []
        async with httpx.AsyncClient(timeout=30) as client:
            headers = await _open(client, one)
            for base in (one, two):
                stray = {"jsonrpc": "2.0", "id": "tw-nobody-1", "result": {"action": "cancel"}}
                statuses.append(
                    (await client.post(f"{base}/mcp", json=stray, headers=headers)).status_code
                )
            # The session goes on as before, on both apps.
            ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
            for base in (one, two):
                statuses.append(
                    (await client.post(f"{base}/mcp", json=ping, headers=headers)).status_code
                )
        return statuses

    with serving(_app(redis_server.url)) as one, serving(_app(redis_server.url)) as two:
        assert anyio.run(scenario, one, two) == [202, 202, 200, 200]


def test_notices_waiting_for_redis_are_bounded_in_bytes(caplog: pytest.LogCaptureFixture) -> None:
    from toolwire.redis.changes import QUEUE_BYTES, RedisChangeBus
    from toolwire.transports.http.changes import CLIENT_RESPONSE

    async def scenario() -> None:
        bus = RedisChangeBus("redis://127.0.0.1:1/0", timeout=0.5)  # nothing listens there
        member = await bus.join(lambda topic, data: None)
        try:
            # Published from the loop without yielding: all of them wait in the queue.
            for _ in range(QUEUE_BYTES // MAX_FORWARDED_BYTES + 1):
                member.publish(CLIENT_RESPONSE, "x" * MAX_FORWARDED_BYTES)
        finally:
            await member.leave()
            await bus.close()

    anyio.run(scenario)
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert dropped == [
        f"change bus: {QUEUE_BYTES} bytes of notices waiting for Redis; client-response dropped"
    ]
