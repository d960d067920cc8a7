"""Testing a server in memory beside testing it through a subprocess.

Run: `python -m tests.benchmarks.bench_in_memory` from the repository root (`--quick` for a
short run). One run, ratios printed, nothing asserted about time. The same server
(tests/benchmarks/servers/tw_server.py) is reached three ways through toolwire's client
adapter, in interleaved rounds so that the machine's noise falls on each alike:

1. `MCPServerInMemory(server)`: the server object in this process;
2. `MCPServerStdio` spawning `python tw_server.py`: a subprocess over pipes;
3. for scale, the Agents SDK's `agents.mcp.MCPServerStdio` over the same subprocess.

Measured: per-call latency of `add(2, 3)` (median and p99 of sequential calls on one
connection), and the cost of a whole test's set-up (connect, `list_tools`, one call,
cleanup: the median of several). The target is a call in memory costing a small fraction of
a subprocess round trip, and a set-up far cheaper than a spawn.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

QUICK = "--quick" in sys.argv
CALLS = 100 if QUICK else 400
ROUNDS = 2 if QUICK else 5
SETUPS = 3 if QUICK else 7
SERVER = Path(__file__).with_name("servers") / "tw_server.py"
ROOT = Path(__file__).resolve().parents[2]


def _in_memory() -> Any:
    import importlib.util

    from toolwire.client import MCPServerInMemory

    spec = importlib.util.spec_from_file_location("bench_tw_server", SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return MCPServerInMemory(module.server)


def _stdio() -> Any:
    from toolwire.client import MCPServerStdio

    return MCPServerStdio(
        {"command": sys.executable, "args": [str(SERVER)], "env": {"PYTHONPATH": str(ROOT / "src")}}
    )


def _sdk_stdio() -> Any:
    from agents.mcp import MCPServerStdio

    return MCPServerStdio(
        {"command": sys.executable, "args": [str(SERVER)], "env": {"PYTHONPATH": str(ROOT / "src")}}
    )


MAKERS: dict[str, Callable[[], Any]] = {
    "toolwire in memory": _in_memory,
    "toolwire stdio subprocess": _stdio,
    "Agents SDK stdio subprocess": _sdk_stdio,
}


def _text(result: Any) -> str:
    return str(result.content[0].text)


async def _calls(server: Any, count: int) -> list[float]:
    spans: list[float] = []
    for _ in range(count):
        started = time.perf_counter()
        result = await server.call_tool("add", {"a": 2, "b": 3})
        spans.append(time.perf_counter() - started)
        assert _text(result) == "5", result
    return spans


async def _setup(make: Callable[[], Any]) -> float:
    started = time.perf_counter()
    server = make()
    await server.connect()
    try:
        await server.list_tools()
        assert _text(await server.call_tool("add", {"a": 1, "b": 1})) == "2"
    finally:
        await server.cleanup()
    return time.perf_counter() - started


async def _measure() -> dict[str, dict[str, list[float]]]:
    figures: dict[str, dict[str, list[float]]] = {
        name: {"call": [], "setup": []} for name in MAKERS
    }
    servers = {name: make() for name, make in MAKERS.items()}
    for server in servers.values():
        await server.connect()
        await _calls(server, 20)  # warm-up
    try:
        for _ in range(ROUNDS):
            for name, server in servers.items():
                figures[name]["call"].extend(await _calls(server, CALLS // ROUNDS))
    finally:
        for server in servers.values():
            await server.cleanup()
    for _ in range(SETUPS):
        for name, make in MAKERS.items():
            figures[name]["setup"].append(await _setup(make))
    return figures


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    figures = asyncio.run(_measure())
    base = statistics.median(figures["toolwire stdio subprocess"]["call"])
    base_setup = statistics.median(figures["toolwire stdio subprocess"]["setup"])
    print(
        f"{'client':30} {'call p50':>10} {'call p99':>10} {'x stdio':>8} {'set-up':>10} {'x stdio':>8}"
    )
    for name, measured in figures.items():
        p50 = statistics.median(measured["call"])
        setup = statistics.median(measured["setup"])
        print(
            f"{name:30} {p50 * 1e6:8.0f}us {_p99(measured['call']) * 1e6:8.0f}us "
            f"{p50 / base:7.2f}x {setup * 1e3:8.1f}ms {setup / base_setup:7.2f}x"
        )


if __name__ == "__main__":
    main()
