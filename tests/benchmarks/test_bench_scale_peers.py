"""The scale benchmark's set-up works (no load, no wrk, no timing): nginx in front of one
and of two processes of each server answers `add(2, 3)` = 5 to the request wrk repeats."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.benchmarks import bench_http, bench_scale
from tests.scale import _infra

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.mark.parametrize("processes", [1, 2])
@pytest.mark.parametrize("label", sorted(bench_scale.SERVERS))
def test_nginx_in_front_answers_the_benchmark_request(
    label: str, processes: int, tmp_path: Path
) -> None:
    _infra.nginx_or_skip()
    peer = bench_scale.SERVERS[label]
    with bench_scale.behind_nginx(peer, processes, 1, tmp_path) as (port, pids):
        for n in range(4 * processes):
            body = bench_http.check_add(port, None, request_id=n)
            assert '"5"' in body
        assert len(set(pids)) == processes
        cpu, switches = bench_scale._server_counters(pids)
        assert cpu > 0 and switches > 0


def test_round_ratios_pair_each_round_and_skip_invalid_ones() -> None:
    def row(rate: float, problem: str = "") -> bench_scale.Row:
        return bench_scale.Row(requests_per_s=rate, p50_ms=1, p99_ms=2, problem=problem)

    samples = {
        ("toolwire", 1): [row(100), row(200), row(100), row(0)],
        ("toolwire", 2): [row(125), row(230), row(150, "wrk errors"), row(50)],
    }
    assert bench_scale.round_ratios(samples, "toolwire") == [1.25, 1.15]
    assert bench_scale.round_ratios(samples, "floor") == []
