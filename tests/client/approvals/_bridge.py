"""The fixture server (`_server.py`) behind toolwire's adapter, and its record of calls."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SERVER = Path(__file__).with_name("_server.py")
ROOT = Path(__file__).resolve().parents[3]


def read_log(log: Path) -> list[dict[str, Any]]:
    """The calls the server received, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def fixture_server(log: Path, require_approval: Any = None, **options: Any) -> Any:
    """An adapter for the fixture server over stdio (not connected yet), named "files"."""
    from toolwire.client import MCPServerStdio

    return MCPServerStdio(
        params={
            "command": sys.executable,
            "args": [str(SERVER)],
            "env": {"APPROVALS_CALL_LOG": str(log), "PYTHONPATH": str(ROOT / "src")},
        },
        name="files",
        require_approval=require_approval,
        client_session_timeout_seconds=30,
        **options,
    )
