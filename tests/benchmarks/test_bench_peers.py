"""The peers benchmark's servers answer what it will send them (no load, no wrk, no timing):
every server of bench_peers.py, on each workload, started as the benchmark starts it, gets
the exact `tools/call` wrk repeats and must answer it right: `add(2, 3)` = 5, and the I/O
tool's merge of a real Redis GET and a real HTTP GET from nginx. A missing peer (Node 22,
Bun, the TypeScript SDK, nginx, redis-server, aiohttp or httpx) skips its test saying how to
install it, and fails it under CI, which must install every one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests._node_tools import tool_missing
from tests.benchmarks import bench_http, bench_peers
from tests.scale._nginx import nginx_path

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

LABELS = [
    (target.workload, target.label)
    for target in bench_peers.targets([bench_peers.ADD, bench_peers.IO], {}, Path("x.mts"))
]


@pytest.fixture(scope="module")
def ts_server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bench_peers.stage_ts_server(tmp_path_factory.mktemp("bench-peers"))


@pytest.fixture(scope="module")
def io_services() -> Iterator[dict[str, str]]:
    if nginx_path() is None:
        tool_missing("nginx is not installed (run scripts/install_system_tools.sh)")
    from tests.redis._server import redis_or_skip

    redis_or_skip()
    with bench_peers.io_services() as services:
        yield services


@pytest.mark.parametrize(
    ("workload", "label"), LABELS, ids=[f"{w}-{x}".replace(" ", "-") for w, x in LABELS]
)
def test_server_answers_the_benchmark_request(
    workload: str, label: str, ts_server: Path, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    services = request.getfixturevalue("io_services") if workload == bench_peers.IO else {}
    [target] = [t for t in bench_peers.targets([workload], services, ts_server) if t.label == label]
    if target.missing:
        tool_missing(target.missing)
    with bench_http.running(target.peer, bench_http.STATELESS, tmp_path) as (port, _process):
        # check() asserts the answer: 5, or exactly the merge of Redis's and nginx's data.
        body = bench_peers.check(port, workload)
    assert ('"5"' if workload == bench_peers.ADD else "widget 42") in body


def test_the_lua_script_sends_the_checked_call() -> None:
    script = bench_http.lua_script([], 1, bench_peers.IO_CALL)
    assert '"params":{"name":"lookup","arguments":{"key":"42"}}' in script
    assert '"arguments":{"a":2,"b":3}' in bench_http.lua_script([], 1)
    with pytest.raises(ValueError, match="quotes params"):
        bench_http.lua_script([], 1, {"name": "it's"})


def test_the_io_targets_carry_the_services_and_their_client() -> None:
    services = {"BENCH_REDIS_URL": "redis://127.0.0.1:1/0", "BENCH_API_URL": "http://x"}
    found = bench_peers.targets([bench_peers.IO], services, Path("s.mts"))
    by_label = {target.label: target for target in found}
    assert "toolwire" not in by_label  # the io tool is async everywhere
    for target in found:
        env = dict(target.peer.env)
        assert env["BENCH_REDIS_URL"] == services["BENCH_REDIS_URL"], target.label
        assert env["BENCH_API_URL"] == services["BENCH_API_URL"], target.label
    assert dict(by_label["tw-async httpx"].peer.env)["BENCH_HTTP_CLIENT"] == "httpx"
    assert dict(by_label["tw-async"].peer.env)["BENCH_HTTP_CLIENT"] == "aiohttp"
    assert str(bench_http.SERVERS / "tw_io_server.py") in by_label["tw-async"].peer.argv
    assert by_label["ts-sdk bun"].peer.program == str(bench_peers.BUN)
