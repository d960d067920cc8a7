"""Shared bits of the client adapter tests: servers to talk to, and bounded runs."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from tests.interop._support import KITCHEN, ROOT

T = TypeVar("T")

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
# The `mcp` client hands a stdio child only a minimal environment: without PYTHONPATH, a child
# would import the installed toolwire rather than this checkout's.
CHILD_ENV = {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}


def kitchen_params(**extra: Any) -> dict[str, Any]:
    """stdio params that start the interop kitchen server (a toolwire server)."""
    return {
        "command": sys.executable,
        "args": [str(KITCHEN)],
        "cwd": str(ROOT),
        "env": CHILD_ENV,
        **extra,
    }


def script_params(name: str, *args: str) -> dict[str, Any]:
    """stdio params that start one of tests/client/servers/<name>.py."""
    return {
        "command": sys.executable,
        "args": [str(SERVERS / f"{name}.py"), *args],
        "cwd": str(ROOT),
        "env": CHILD_ENV,
    }


def bounded(main: Callable[[], Awaitable[T]], seconds: float = 60) -> T:
    """Run `main` under asyncio, failing if it takes longer than `seconds`."""

    async def run() -> T:
        with anyio.fail_after(seconds):
            return await main()

    return anyio.run(run)


def run_config() -> Any:
    from agents import RunConfig

    return RunConfig(tracing_disabled=True)
