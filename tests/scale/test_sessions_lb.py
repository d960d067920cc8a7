"""Handshake-era sessions over two toolwire processes behind nginx, each process keeping its
sessions in memory (no shared store).

- Routed: each process issues session ids tagged with its route (`TOOLWIRE_SESSION_ROUTE`)
  and nginx maps the tag back to the process: every session works, and stays on the process
  that opened it.
- Hashed (`hash $http_mcp_session_id`): the `initialize` carries no id yet, so the session is
  opened wherever round robin sends it and its id then hashes to either process: some
  sessions find themselves on a process that never heard of them (404). Stickiness by hash
  needs a store shared by the processes; this test shows why.
"""

from __future__ import annotations

import anyio
import pytest
from tests.scale._infra import nginx_or_skip, start_backend, start_nginx
from tests.scale._shared import official_session, toolwire_run

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

TARGET = "tests.scale.servers.scale_server:server"
RUN_SECONDS = 120.0


def test_sessions_routed_by_their_id_stay_on_the_process_that_opened_them() -> None:
    nginx_or_skip()
    first = start_backend(TARGET, env={"TOOLWIRE_SESSION_ROUTE": "b0"})
    second = start_backend(TARGET, env={"TOOLWIRE_SESSION_ROUTE": "b1"})
    balancer = start_nginx(
        [first.port, second.port], session_routes={"b0": first.port, "b1": second.port}
    )
    sessions, calls = 12, 5
    served: list[set[int]] = []

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            for _ in range(sessions):
                async with official_session(balancer.url) as session:
                    pids = set()
                    for n in range(calls):
                        result = await session.call_tool("whoami", {"n": n})
                        assert not result.is_error, result
                        pids.add(int(result.content[0].text.split(":")[0]))  # type: ignore[union-attr]
                    served.append(pids)

    anyio.run(scenario)
    # Each session was served by one process, and both processes had sessions.
    assert all(len(pids) == 1 for pids in served), served
    assert set().union(*served) == {first.pid, second.pid}
    # nginx's view: each id was issued by a process whose route it carries, and every
    # request bearing it went to that process.
    route_of = {first.address: "b0", second.address: "b1"}
    entries = balancer.entries()
    issued = {e.session_out: e.tried[-1] for e in entries if e.session_out and not e.session_in}
    assert len(issued) == sessions, issued
    for session_id, address in issued.items():
        assert session_id.startswith(route_of[address] + "."), (session_id, address)
        bearing = [e for e in entries if e.session_in == session_id]
        assert len(bearing) >= calls, bearing
        assert {e.tried[-1] for e in bearing} == {address}, bearing
        assert all(len(e.tried) == 1 and e.status < 400 for e in bearing), bearing


def test_hashing_the_session_id_alone_strands_sessions_without_a_shared_store() -> None:
    nginx_or_skip()
    first = start_backend(TARGET)
    second = start_backend(TARGET)
    balancer = start_nginx([first.port, second.port], sticky_on_session=True)
    outcomes: list[str] = []

    async def one_session() -> str:
        try:
            async with official_session(balancer.url) as session:
                await session.call_tool("whoami", {"n": 1})
            return "ok"
        except Exception as error:  # the client's report of the 404 (in a group, for mcp)
            return f"failed: {error!r}"

    async def scenario() -> None:
        with anyio.fail_after(RUN_SECONDS):
            for _ in range(40):  # each session strands with odds about 1/2: 2**-40 to miss
                outcomes.append(await one_session())
                if outcomes[-1] != "ok":
                    break

    anyio.run(scenario)
    assert outcomes[-1] != "ok", outcomes
    # nginx saw the reason: a 404 from the process that did not open the session.
    assert 404 in {entry.status for entry in balancer.entries()}, outcomes


def test_an_invalid_route_is_refused_naming_the_variable() -> None:
    completed = toolwire_run(
        TARGET, "--transport", "http", "--port", "0", TOOLWIRE_SESSION_ROUTE="not a route"
    )
    assert completed.returncode != 0
    assert "TOOLWIRE_SESSION_ROUTE='not a route' is not a valid session route" in completed.stderr
