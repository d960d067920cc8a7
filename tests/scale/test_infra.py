"""The scale-out fixtures themselves: a missing nginx skips on a developer's machine and fails
under CI; no process outlives `reap_all`; bad arguments are refused."""

from __future__ import annotations

import pytest
from tests.scale import _infra

pytestmark = pytest.mark.timeout(120)


def _without_nginx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(_infra, "SBIN_DIRS", ())


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
    assert _infra._live == []


def test_a_target_that_cannot_start_is_reported_with_its_output() -> None:
    with pytest.raises(RuntimeError, match="no module named 'no_such_module'"):
        _infra.start_backend("no_such_module:server")
