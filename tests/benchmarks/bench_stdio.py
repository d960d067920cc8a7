"""MCP over stdio: toolwire beside FastMCP, the official MCPServer and a floor loop.

Run: `python -m tests.benchmarks.bench_stdio [--spawns N] [--calls N]` from the repository
root. Prints a table with ratios; asserts nothing about time. Every loop is bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVERS = {
    "floor loop": "tests/benchmarks/servers/floor_server.py",
    "toolwire": "tests/benchmarks/servers/tw_server.py",
    "mcp MCPServer": "tests/benchmarks/servers/mcpserver_server.py",
    "FastMCP": "tests/benchmarks/servers/fastmcp_server.py",
}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Peer:
    def __init__(self, script: str) -> None:
        env = {
            **os.environ,
            "FASTMCP_SHOW_SERVER_BANNER": "false",
            "FASTMCP_CHECK_FOR_UPDATES": "off",
        }
        self.proc = subprocess.Popen(
            [sys.executable, script],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 1

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def ask(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        assert self.proc.stdout is not None
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                return reply

    def handshake(self) -> None:
        self.send(INIT)
        assert self.proc.stdout is not None
        json.loads(self.proc.stdout.readline())
        self.send(INITIALIZED)

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def cold_start(script: str, spawns: int) -> float:
    times = []
    for _ in range(spawns + 1):  # the first run warms the page cache and .pyc files
        started = time.perf_counter()
        peer = Peer(script)
        peer.handshake()
        peer.ask("tools/list")
        times.append(time.perf_counter() - started)
        peer.close()
    return statistics.median(times[1:])


def calls(script: str, count: int) -> tuple[float, float, float]:
    peer = Peer(script)
    peer.handshake()
    peer.ask("tools/list")
    samples = []
    for i in range(count):
        started = time.perf_counter()
        reply = peer.ask("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}})
        samples.append(time.perf_counter() - started)
        assert "result" in reply, reply
    rss = peer.rss_mib()
    peer.close()
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99) - 1], rss


def agents_connect(script: str, runs: int) -> float:
    import asyncio

    from agents.mcp import MCPServerStdio

    async def once() -> float:
        started = time.perf_counter()
        params = {
            "command": sys.executable,
            "args": [script],
            "cwd": str(ROOT),
            "env": {**os.environ, "FASTMCP_SHOW_SERVER_BANNER": "false"},
        }
        async with MCPServerStdio(params=params, client_session_timeout_seconds=30) as server:
            await server.list_tools()
            elapsed = time.perf_counter() - started
        return elapsed

    return statistics.median(asyncio.run(once()) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spawns", type=int, default=5)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--agents-runs", type=int, default=3)
    args = parser.parse_args()
    results = {}
    for label, script in SERVERS.items():
        start = cold_start(script, args.spawns)
        median, p99, rss = calls(script, args.calls)
        connect = agents_connect(script, args.agents_runs)
        results[label] = (start, median, p99, rss, connect)
    floor, fast = results["floor loop"], results["FastMCP"]
    print(
        f"{'server':14} {'spawn->tools/list':>18} {'x floor':>8} {'call p50':>9} {'call p99':>9}"
        f" {'x FastMCP':>9} {'RSS MiB':>8} {'agents connect+list':>20}"
    )
    for label, (start, median, p99, rss, connect) in results.items():
        print(
            f"{label:14} {start * 1000:16.0f}ms {start / floor[0]:7.2f}x {median * 1e6:7.0f}us"
            f" {p99 * 1e6:7.0f}us {median / fast[1]:8.3f}x {rss:8.1f} {connect * 1000:18.0f}ms"
        )


if __name__ == "__main__":
    main()
