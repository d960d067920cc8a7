"""Stateless toolwire behind a real nginx, two processes: every call through the balancer
succeeds, both processes serve, and losing one mid-run (SIGKILL) loses no call.

The failover policy, decided here and documented in docs/deployment.md:

- nginx keeps its default `proxy_next_upstream error timeout`: a request that could not be
  handed to a backend (connection refused once the process is gone) goes to the next one.
  nginx does NOT resend a POST that a backend already received (`non_idempotent` is off): a
  `tools/call` may have run before its process died, and running it again is for the
  caller to decide, not the balancer.
- The client decides with what the spec gives it: a tool annotated `readOnlyHint` or
  `idempotentHint` can be called again without harm, so a call to one whose answer was lost
  (nginx's 502 for a dropped connection) is retried once. The tools here are annotated so.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest
from mcp import ClientSession
from tests.scale._infra import Backend, Nginx, nginx_or_skip, start_backend, start_nginx
from tests.scale._shared import official_session

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

TARGET = "tests.scale.servers.scale_server:server"
STATELESS = ("--stateless", "--json-response")
RUN_SECONDS = 120.0


@pytest.fixture
def two_behind_nginx() -> Iterator[tuple[Backend, Backend, Nginx]]:
    nginx_or_skip()
    first = start_backend(TARGET, args=STATELESS)
    second = start_backend(TARGET, args=STATELESS)
    balancer = start_nginx([first.port, second.port])
    yield first, second, balancer
    for process in (balancer, first, second):
        process.stop()


def _pid_of(text: str, n: int) -> int:
    pid, echoed = text.split(":")
    assert int(echoed) == n, text
    return int(pid)


async def _call_whoami(session: ClientSession, n: int) -> int:
    result = await session.call_tool("whoami", {"n": n})
    assert not result.is_error, result
    return _pid_of(result.content[0].text, n)  # type: ignore[union-attr]


def test_calls_through_nginx_all_succeed_and_both_processes_serve(
    two_behind_nginx: tuple[Backend, Backend, Nginx],
) -> None:
    first, second, balancer = two_behind_nginx
    calls, concurrency = 240, 8
    answered: dict[int, int] = {}

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            async with official_session(balancer.url) as session:
                todo = iter(range(calls))

                async def worker() -> None:
                    for n in todo:  # shared: each call made once, by whichever worker is free
                        answered[n] = await _call_whoami(session, n)

                async with anyio.create_task_group() as group:
                    for _ in range(concurrency):
                        group.start_soon(worker)

    anyio.run(scenario)
    assert sorted(answered) == list(range(calls))
    served = {pid: list(answered.values()).count(pid) for pid in set(answered.values())}
    assert set(served) == {first.pid, second.pid}, served
    # nginx's own account agrees: both upstreams answered, and no request failed there.
    upstreams = balancer.upstream_counts()
    assert set(upstreams) == {first.address, second.address}, upstreams
    assert sum(upstreams.values()) >= calls
    statuses = {entry.status for entry in balancer.entries()}
    assert statuses <= {200, 202, 204}, statuses


def test_killing_one_of_two_backends_mid_run_loses_no_call(
    two_behind_nginx: tuple[Backend, Backend, Nginx],
) -> None:
    survivor, victim, balancer = two_behind_nginx
    calls, kill_at, concurrency = 600, 150, 8
    answered: dict[int, int] = {}
    after_kill: set[int] = set()  # calls started once the victim was dead
    retried: list[tuple[int, str]] = []
    reconnected: list[str] = []
    killed = anyio.Event()
    todo = iter(range(calls))  # shared: each call made once, by whichever worker is free

    async def call_with_retry(session: ClientSession, n: int, safe_to_repeat: bool) -> int:
        try:
            return await _call_whoami(session, n)
        except Exception as error:
            # The answer was lost on the way (nginx says 502: its backend dropped the
            # connection). The tool is annotated read-only and idempotent, so calling it
            # again is allowed; anything else would be re-raised.
            if not safe_to_repeat:
                raise
            retried.append((n, f"{type(error).__name__}: {error}"))
            return await _call_whoami(session, n)

    async def worker(safe: bool) -> None:
        # Each worker has its own client. The `mcp` client does not survive every way a
        # killed backend can cut a reply short: a JSON body that ends early (nginx had already
        # sent the headers) escapes its response reader and ends the whole client. A real
        # application reconnects, and, for a tool the annotations say is safe to repeat, calls
        # again: so does this worker, at most twice.
        pending: int | None = None
        for _ in range(3):
            try:
                async with official_session(balancer.url) as session:
                    if pending is not None:
                        answered[pending] = await _call_whoami(session, pending)
                        pending = None
                    for n in todo:
                        pending = n
                        if n == kill_at:
                            victim.kill()  # SIGKILL, with up to 7 other calls in flight
                            killed.set()
                        if killed.is_set():
                            after_kill.add(n)
                        answered[n] = await call_with_retry(session, n, safe)
                        pending = None
                return
            except Exception as error:
                if pending is None or not safe:
                    raise
                reconnected.append(f"call {pending}: {type(error).__name__}: {error}")
        raise AssertionError(f"a worker lost its client three times: {reconnected}")

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            async with official_session(balancer.url) as session:
                listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            hints = listed["whoami"].annotations
            safe = bool(hints and (hints.read_only_hint or hints.idempotent_hint))
            async with anyio.create_task_group() as group:
                for _ in range(concurrency):
                    group.start_soon(worker, safe)

    anyio.run(scenario)
    assert sorted(answered) == list(range(calls)), "a call was lost"
    before = [answered[n] for n in range(calls) if n not in after_kill]
    assert victim.pid in before and survivor.pid in before  # both served until the kill
    survivor_after = [n for n in after_kill if answered[n] == survivor.pid]
    # Every call started after the kill was served by the survivor.
    assert len(survivor_after) == len(after_kill) >= calls - kill_at
    print(
        f"\nfailover: {calls} calls, victim killed at call {kill_at}; "
        f"survivor served {len(survivor_after)} calls after the kill; "
        f"{len(retried)} retried by the client ({sorted(retried)}); "
        f"{len(reconnected)} client(s) rebuilt ({reconnected}); "
        f"nginx passed {_passed_on(balancer)} requests on to the next backend"
    )


def _passed_on(balancer: Nginx) -> int:
    """Requests nginx tried on more than one backend."""
    return sum(len(entry.tried) > 1 for entry in balancer.entries())
