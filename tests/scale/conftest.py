"""Every test here leaves no process behind: whatever it started and did not stop is
killed after it, pass or fail."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.scale._infra import reap_all


@pytest.fixture(autouse=True)
def _reap_processes() -> Iterator[None]:
    yield
    reap_all()
