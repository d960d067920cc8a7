"""The HTTP benchmark's servers answer what it will send them (no load, no wrk, no timing):
each peer of bench_http.py, in each of its modes, started as the benchmark starts it, opens
its sessions and answers `add(2, 3)` = 5 to the exact request the Lua script repeats."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.benchmarks import bench_http

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

TARGETS = [(peer, mode) for peer in bench_http.PEERS for mode in peer.modes]


@pytest.mark.parametrize(
    ("peer", "mode"), TARGETS, ids=[f"{peer.label}-{mode}" for peer, mode in TARGETS]
)
def test_peer_answers_the_benchmark_request(
    peer: bench_http.Peer, mode: str, tmp_path: Path
) -> None:
    with bench_http.running(peer, mode, tmp_path) as (port, _process):
        sessions = (
            [bench_http.open_session(port) for _ in range(2)] if mode == "session-sse" else []
        )
        for session in sessions or [None]:
            body = bench_http.check_add(port, session)
            assert '"5"' in body
        script = bench_http.lua_script(sessions, threads=1)
        assert all(f'"{session}"' in script for session in sessions)
