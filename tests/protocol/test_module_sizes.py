"""The modules of the server, session, resource and prompt layers stay one concept each, at
about 400 lines at most (a file past that mixes concepts: move one out)."""

from __future__ import annotations

from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "toolwire"
WATCHED = [
    SRC / "server.py",
    SRC / "_resource_api.py",
    SRC / "_prompt_api.py",
    SRC / "_sync_workers.py",
    *sorted((SRC / "protocol").glob("session*.py")),
    *sorted((SRC / "protocol").glob("resource*.py")),
    *sorted((SRC / "protocol").glob("prompt*.py")),
    SRC / "protocol" / "completion.py",
]


@pytest.mark.parametrize("path", WATCHED, ids=lambda path: path.name)
def test_module_stays_under_400_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= 400, f"{path.name} has {lines} lines"
