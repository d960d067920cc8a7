"""A client's answers to a tool's questions, across processes: two toolwire processes sharing
a Redis behind round-robin nginx, the official `mcp` client answering `ctx.elicit` and
`ctx.sample`. A call's question goes out on the call's SSE response, from the process that
runs it; the client POSTs its answer, which round robin sends to either process. Every call
completes with the client's answer, and the processes' logs show that each passed answers on
to the other and took answers passed on by the other (without that, the calls whose answer
landed on the wrong process wait until their question times out)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.scale._infra import Backend, Nginx, backends_on_one_redis, nginx_or_skip, start_nginx

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

TARGET = "tests.scale.servers.announcing:server"
RUN_SECONDS = 200.0
ELICITS = 48
SAMPLES = 12
PASSED_ON = "passed on to the other processes"
TAKEN = "passed on by another process"


@pytest.fixture
def two_behind_nginx() -> Iterator[tuple[Backend, Backend, Nginx]]:
    nginx_or_skip()
    debug = {"TOOLWIRE_LOG_LEVEL": "DEBUG"}  # the logs tell which answers were passed on
    with backends_on_one_redis(TARGET, env=debug) as (_, first, second):
        balancer = start_nginx([first.port, second.port])
        yield first, second, balancer
        balancer.stop()


async def _elicited(context: Any, params: Any) -> Any:
    import mcp_types as types

    n = int(params.message.split()[-1])
    return types.ElicitResult(action="accept", content={"n": n, "who": "client"})


async def _sampled(context: Any, params: Any) -> Any:
    import mcp_types as types

    prompt = params.messages[0].content.text
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"answer to {prompt}"),
        model="test-model",
        stop_reason="endTurn",
    )


def _text(result: Any) -> str:
    assert not result.is_error, result
    return str(result.content[0].text)


def test_every_answer_reaches_the_call_that_asked_whichever_process_nginx_sent_it_to(
    two_behind_nginx: tuple[Backend, Backend, Nginx],
) -> None:
    first, second, balancer = two_behind_nginx
    asked_by: Counter[int] = Counter()
    sampled_by: Counter[int] = Counter()

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            async with (
                streamable_http_client(balancer.url) as (read, write, *_),
                ClientSession(
                    read, write, elicitation_callback=_elicited, sampling_callback=_sampled
                ) as session,
            ):
                await session.initialize()
                for n in range(ELICITS):
                    if n % 3 == 1:  # shifts which process round robin gives the next call
                        await session.send_ping()
                    pid, echoed, action, content = _text(
                        await session.call_tool("ask", {"n": n})
                    ).split(":", 3)
                    assert (echoed, action, content) == (
                        str(n),
                        "accept",
                        str({"n": n, "who": "client"}),
                    )
                    asked_by[int(pid)] += 1
                # Some at once as well: answers then cross on the way.
                async with anyio.create_task_group() as group:
                    for n in range(SAMPLES):

                        async def sample(n: int = n) -> None:
                            pid, echoed, text = _text(
                                await session.call_tool("ask_model", {"n": n})
                            ).split(":", 2)
                            assert (echoed, text) == (str(n), f"answer to prompt {n}")
                            sampled_by[int(pid)] += 1

                        group.start_soon(sample)

    anyio.run(scenario)
    assert sum(asked_by.values()) == ELICITS and sum(sampled_by.values()) == SAMPLES
    assert set(asked_by) == {first.pid, second.pid}, asked_by
    # Each process passed answers on to the other and took the other's.
    for backend in (first, second):
        log = backend.log_text()
        assert log.count(PASSED_ON) >= 1 and log.count(TAKEN) >= 1, log[-3000:]
    assert balancer.upstream_counts().keys() == {first.address, second.address}
    print(
        f"\nasked by {dict(asked_by)}; passed on: {[b.log_text().count(PASSED_ON) for b in (first, second)]}"
    )
