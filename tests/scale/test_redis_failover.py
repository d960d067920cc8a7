"""Failover with handshake-era sessions: two toolwire processes sharing a Redis behind
round-robin nginx, several official-client sessions making >= 500 calls, one process
SIGKILLed mid-run. Every session goes on on the survivor, and every call gets its result.

Who retries what, and why it is the client's job:

- A call in flight on the killed process is lost with it: the process ran it (or not) and
  died before answering. Nothing on the server side can tell whether the tool ran, so only
  the caller can decide whether to call again. nginx keeps its default `proxy_next_upstream
  error timeout` and never resends a POST a backend already received.
- The spec gives the client what it needs to decide: a tool annotated `readOnlyHint` or
  `idempotentHint` can be called again without harm. The tool here is annotated so, and the
  client below retries a call that failed (nginx's 502 for the dropped connection, or the
  SDK giving up resuming a stream whose process is gone: the survivor answers 409 to the
  `Last-Event-ID`, having nothing stored after it) at most `RETRIES` times.
- What must NOT be lost is the session: the client keeps its `Mcp-Session-Id` and the
  survivor serves it from the Redis record, with no new `initialize`.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import httpx2 as httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.redis._server import RedisServer
from tests.scale._infra import Backend, Nginx, backends_on_one_redis, nginx_or_skip, start_nginx
from tests.scale._shared import TARGET

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

SESSIONS = 5
CALLS_PER_SESSION = 110  # 550 calls in all
KILL_AFTER = 150  # the victim dies once this many calls were answered
RETRIES = 2
RUN_SECONDS = 180.0


@pytest.fixture
def two_behind_nginx() -> Iterator[tuple[Backend, Backend, Nginx, RedisServer]]:
    nginx_or_skip()
    with backends_on_one_redis(TARGET) as (redis, first, second):
        balancer = start_nginx([first.port, second.port])
        yield first, second, balancer, redis
        balancer.stop()


def test_sessions_survive_the_sigkill_of_one_of_two_processes_and_no_call_is_lost(
    two_behind_nginx: tuple[Backend, Backend, Nginx, RedisServer],
) -> None:
    survivor, victim, balancer, _ = two_behind_nginx
    answered: dict[tuple[int, int], int] = {}  # (session, call) -> pid that answered
    after_kill: set[tuple[int, int]] = set()
    retried: list[str] = []
    session_ids: dict[int, set[str]] = {}  # every Mcp-Session-Id each client sent
    killed = anyio.Event()

    async def whoami(session: ClientSession, n: int) -> int:
        result = await session.call_tool("whoami", {"n": n})
        assert not result.is_error, result
        pid, echoed = result.content[0].text.split(":")  # type: ignore[union-attr]
        assert int(echoed) == n
        return int(pid)

    async def one_session(index: int) -> None:
        sent = session_ids[index] = set()

        async def note_session(request: httpx.Request) -> None:
            if "mcp-session-id" in request.headers:
                sent.add(request.headers["mcp-session-id"])

        http = httpx.AsyncClient(
            timeout=httpx.Timeout(30, read=300), event_hooks={"request": [note_session]}
        )
        async with (
            http,
            streamable_http_client(balancer.url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            hints = listed["whoami"].annotations
            safe_to_repeat = bool(hints and (hints.read_only_hint or hints.idempotent_hint))
            assert safe_to_repeat
            for n in range(CALLS_PER_SESSION):
                if killed.is_set():
                    after_kill.add((index, n))
                for attempt in range(RETRIES + 1):
                    try:
                        answered[index, n] = await whoami(session, n)
                        break
                    except Exception as error:
                        # The answer was lost with the process that ran the call; the tool
                        # is read-only and idempotent, so calling again is the client's
                        # right (see the module docstring). Anything else is a failure.
                        if attempt == RETRIES:
                            raise
                        retried.append(f"{index}/{n}: {type(error).__name__}: {error}")

    async def killer() -> None:
        # From a task of its own, while every session has calls in flight.
        for _ in range(int(RUN_SECONDS / 0.002)):
            if len(answered) >= KILL_AFTER:
                break
            await anyio.sleep(0.002)
        await anyio.to_thread.run_sync(victim.kill)  # SIGKILL
        killed.set()

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            async with anyio.create_task_group() as group:
                group.start_soon(killer)
                for index in range(SESSIONS):
                    group.start_soon(one_session, index)

    anyio.run(scenario)
    total = SESSIONS * CALLS_PER_SESSION
    assert len(answered) == total, f"{total - len(answered)} calls lost"
    # Each client kept one session id from start to end: no session was made again.
    assert all(len(ids) == 1 for ids in session_ids.values()), session_ids
    before = [pid for key, pid in answered.items() if key not in after_kill]
    assert victim.pid in before and survivor.pid in before  # both served until the kill
    # Every call made once the victim was dead was answered by the survivor.
    assert {answered[key] for key in after_kill} == {survivor.pid}
    # Most of the run comes after the kill (how many exactly depends on the machine's pace
    # while the kill is delivered and reaped).
    assert len(after_kill) >= total // 2, len(after_kill)
    assert len(retried) <= SESSIONS * RETRIES, retried
    print(
        f"\nfailover with Redis sessions: {total} calls over {SESSIONS} sessions, victim "
        f"killed after {KILL_AFTER} answers; {len(after_kill)} calls after the kill, all "
        f"on the survivor; {len(retried)} retried by the client: {retried}"
    )


def test_sticky_routing_keeps_a_session_on_one_process_until_it_dies(
    two_behind_nginx: tuple[Backend, Backend, Nginx, RedisServer],
) -> None:
    first, second, _, _ = two_behind_nginx
    sticky = start_nginx([first.port, second.port], sticky_on_session=True)
    pids: list[int] = []
    home: list[Backend] = []

    async def whoami(session: ClientSession, n: int) -> int:
        for attempt in range(RETRIES + 1):
            try:
                result = await session.call_tool("whoami", {"n": n})
                return int(result.content[0].text.split(":")[0])  # type: ignore[union-attr]
            except Exception:  # lost with the killed process; read-only, so called again
                if attempt == RETRIES:
                    raise
        raise AssertionError("unreachable")

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            async with (
                streamable_http_client(sticky.url) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                for n in range(20):
                    pids.append(await whoami(session, n))
                home.append(first if pids[0] == first.pid else second)
                await anyio.to_thread.run_sync(home[0].kill)
                for n in range(20, 40):
                    pids.append(await whoami(session, n))

    anyio.run(scenario)
    other = second if home[0] is first else first
    assert set(pids[:20]) == {home[0].pid}  # hashed to one process while it lived
    assert set(pids[20:]) == {other.pid}  # then moved, the same session, to the other
    sticky.stop()
