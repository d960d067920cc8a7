"""The scale-out fixtures themselves: a missing nginx skips on a developer's machine and fails
under CI; no process outlives `reap_all`; bad arguments are refused."""

from __future__ import annotations

import pytest
from tests.scale import _infra, _nginx, _processes

pytestmark = pytest.mark.timeout(120)


def _without_nginx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(_nginx, "SBIN_DIRS", ())


def test_missing_nginx_skips_with_the_reason_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_nginx(monkeypatch)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="nginx is not installed"):
        _infra.nginx_or_skip()


def test_missing_nginx_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_nginx(monkeypatch)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set: CI must install it"):
        _infra.nginx_or_skip()


def test_nginx_needs_a_backend() -> None:
    _infra.nginx_or_skip()
    with pytest.raises(ValueError, match="at least one backend port"):
        _infra.start_nginx([])


def test_reap_all_leaves_nothing_running() -> None:
    _infra.nginx_or_skip()
    backend = _infra.start_backend(
        "tests.scale.servers.scale_server:server", args=("--stateless", "--workers", "2")
    )
    balancer = _infra.start_nginx([backend.port])
    _infra.reap_all()
    assert backend.process.poll() is not None
    assert balancer.process.poll() is not None
    assert _processes.live == []
    for pgid in (backend.pid, balancer.pid):
        assert _infra.wait_until_group_gone(pgid) == []


def test_a_target_that_cannot_start_is_reported_with_its_output() -> None:
    with pytest.raises(RuntimeError, match="no module named 'no_such_module'"):
        _infra.start_backend("no_such_module:server")


@pytest.mark.parametrize("how", ["kill", "stop"])
def test_nginx_goes_with_its_workers(how: str) -> None:
    _infra.nginx_or_skip()
    backend = _infra.start_backend("tests.scale.servers.scale_server:server", args=("--stateless",))
    balancer = _infra.start_nginx([backend.port], workers=2)
    workers = [pid for pid, ppid, _ in _infra.group_members(balancer.pid) if ppid == balancer.pid]
    assert len(workers) == 2, workers
    if how == "kill":
        balancer.kill()  # SIGKILL: the workers cannot be told, the group goes whole
    else:
        status = balancer.stop()
        assert status == 0, (status, (balancer.workdir / "error.log").read_text())
    left = _infra.wait_until_group_gone(balancer.pid)
    assert left == [], (left, workers)
