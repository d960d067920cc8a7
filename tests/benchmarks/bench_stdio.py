"""MCP over stdio: toolwire beside FastMCP, the official MCPServer and a floor loop.

Run from the repository root:

    .venv/bin/python -m tests.benchmarks.bench_stdio [--spawns 7] [--calls 500] [--agents-runs 5]

Every server publishes the same tools (`add(a:int, b:int) -> int`, `echo(text:str) -> str`;
see tests/benchmarks/servers/). Measured, each over real stdio pipes:

1. spawn -> first `tools/list` response: a fresh process, `initialize`, `initialized`,
   `tools/list`; the median of N processes after one warm-up run (page cache, .pyc files).
2. sequential `tools/call` latency over one process: median and p99 of --calls calls (after
   20 uncounted ones), each from writing its prebuilt request to reading the last byte of its
   reply. Encoding the request and parsing the reply happen outside that span: a client's own
   JSON work is the same for every server and would only pull the ratios towards 1. (Waits
   are bounded by an interval timer per batch instead of a select() before every read.)

Both are interleaved across the servers (round after round, batch after batch) so that the
ratios compare servers measured in the same moments of a shared, noisy machine. Each server
idles while the others take their turn, as a real server idles between a model's calls;
`--batch` equal to `--calls` measures calls back to back instead.
3. RSS of that process after the calls (VmRSS from /proc/<pid>/status).
4. Agents SDK `MCPServerStdio`: connect (spawn + initialize) + `list_tools`, median of runs.

Bytecode: toolwire and the benchmark servers are compiled to .pyc first, as an installed
package is (an editable install under PYTHONDONTWRITEBYTECODE=1 would otherwise recompile
every toolwire module in every spawn while the peers load their installed .pyc files).

Prints a table with ratios against the floor loop (start-up) and FastMCP (per call) and the
targets (start-up <= 1.25x floor, per call <= 1/10 FastMCP, RSS <= 40 MiB). It asserts the
replies are right, never anything about time. Every wait is bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "benchmarks" / "servers"
QUIET_FASTMCP = {"FASTMCP_SHOW_SERVER_BANNER": "false"}
REPLY_TIMEOUT = 60.0


@dataclass(frozen=True)
class Peer:
    label: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()

    def environ(self) -> dict[str, str]:
        return {**os.environ, **dict(self.env)}


PEERS = [
    Peer("floor loop", (str(SERVERS / "floor_server.py"),)),
    Peer("toolwire", (str(SERVERS / "tw_server.py"),)),
    Peer("toolwire run", ("-m", "toolwire", "run", str(SERVERS / "tw_server.py"))),
    Peer("mcp MCPServer", (str(SERVERS / "mcpserver_server.py"),)),
    Peer("FastMCP quiet", (str(SERVERS / "fastmcp_server.py"),), tuple(QUIET_FASTMCP.items())),
    Peer("FastMCP defaults", (str(SERVERS / "fastmcp_server.py"),)),
]
INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"},
}


class Process:
    """One server process driven with raw JSON-RPC lines; reads are bounded by select()."""

    def __init__(self, peer: Peer) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, *peer.argv],
            cwd=ROOT,
            env=peer.environ(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0
        self.buffer = b""

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def _line(self, deadline: float) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise TimeoutError("no reply in time")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise EOFError(f"server exited ({self.proc.poll()})")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def ask(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        deadline = time.monotonic() + REPLY_TIMEOUT
        while True:
            reply = json.loads(self._line(deadline))
            if reply.get("id") == self.next_id:
                assert "result" in reply, reply
                return dict(reply["result"])

    def round_trip(self, frame: bytes, request_id: int) -> tuple[float, dict[str, Any]]:
        """Seconds from writing `frame` to the end of the reply to `request_id`, and the reply.

        Reads block: the caller bounds them with `bounded()`."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        started = time.perf_counter()
        os.write(self.proc.stdin.fileno(), frame)
        while True:
            while b"\n" not in self.buffer:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise EOFError(f"server exited ({self.proc.poll()})")
                self.buffer += chunk
            elapsed = time.perf_counter() - started
            line, self.buffer = self.buffer.split(b"\n", 1)
            reply = json.loads(line)
            if reply.get("id") == request_id:
                assert "result" in reply, reply
                return elapsed, dict(reply["result"])

    def handshake(self) -> None:
        self.ask("initialize", INITIALIZE)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

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
            self.proc.wait(timeout=10)


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in a read still blocked after `seconds` (SIGALRM)."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no reply within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _spawn_once(peer: Peer) -> float:
    started = time.perf_counter()
    process = Process(peer)
    try:
        process.handshake()
        tools = process.ask("tools/list")["tools"]
        elapsed = time.perf_counter() - started
    finally:
        process.close()
    assert {tool["name"] for tool in tools} == {"add", "echo"}, tools
    return elapsed


def cold_starts(peers: list[Peer], spawns: int) -> dict[str, float]:
    """Median spawn -> first tools/list per peer. Rounds go through every peer in turn, so
    a slow spell of a shared machine weighs on all of them alike."""
    for peer in peers:  # warms the page cache and .pyc files; not counted
        _spawn_once(peer)
    times: dict[str, list[float]] = {peer.label: [] for peer in peers}
    for _ in range(spawns):
        for peer in peers:
            times[peer.label].append(_spawn_once(peer))
    return {label: statistics.median(samples) for label, samples in times.items()}


def sequential_calls(
    peers: list[Peer], count: int, batch: int = 100
) -> dict[str, tuple[float, float, float]]:
    """(p50, p99, RSS after the calls) per peer: one process each, all alive at once, `batch`
    calls to each in turn until each had `count` (interleaved for the same reason)."""
    processes = {peer.label: Process(peer) for peer in peers}
    samples: dict[str, list[float]] = {label: [] for label in processes}
    results: dict[str, tuple[float, float, float]] = {}
    try:
        for process in processes.values():
            process.handshake()
            process.ask("tools/list")
            for i in range(20):  # first calls build models and caches: not counted
                process.ask("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}})
        done = 0
        while done < count:
            size = min(batch, count - done)
            for label, process in processes.items():
                with bounded(REPLY_TIMEOUT):
                    for i in range(done, done + size):
                        process.next_id += 1
                        request = {
                            "jsonrpc": "2.0",
                            "id": process.next_id,
                            "method": "tools/call",
                            "params": {"name": "add", "arguments": {"a": i, "b": 1}},
                        }
                        frame = json.dumps(request).encode() + b"\n"
                        elapsed, result = process.round_trip(frame, process.next_id)
                        samples[label].append(elapsed)
                        assert result["content"][0]["text"] == str(i + 1), result
            done += size
        for label, process in processes.items():
            echoed = process.ask("tools/call", {"name": "echo", "arguments": {"text": "ok"}})
            assert echoed["content"][0]["text"] == "ok", echoed
            p99 = statistics.quantiles(samples[label], n=100, method="inclusive")[98]
            results[label] = (statistics.median(samples[label]), p99, process.rss_mib())
    finally:
        for process in processes.values():
            process.close()
    return results


def agents_connect(peer: Peer, runs: int) -> float:
    import asyncio

    from agents.mcp import MCPServerStdio

    async def once() -> float:
        started = time.perf_counter()
        params = {"command": sys.executable, "args": list(peer.argv), "cwd": str(ROOT)}
        params["env"] = peer.environ()
        async with MCPServerStdio(params=params, client_session_timeout_seconds=60) as server:
            names = {tool.name for tool in await server.list_tools()}
            elapsed = time.perf_counter() - started
        assert names == {"add", "echo"}, names
        return elapsed

    async def all_runs() -> list[float]:
        return [await asyncio.wait_for(once(), 120) for _ in range(runs + 1)]

    return statistics.median(asyncio.run(all_runs())[1:])


def compile_bytecode() -> None:
    import compileall

    for folder in (ROOT / "src" / "toolwire", SERVERS):
        compileall.compile_dir(folder, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spawns", type=int, default=7, help="fresh processes per server")
    parser.add_argument("--calls", type=int, default=500, help="sequential tools/call")
    parser.add_argument("--agents-runs", type=int, default=5, help="MCPServerStdio connects")
    parser.add_argument(
        "--batch",
        type=int,
        default=100,
        help="calls to one server before the next server's turn (= --calls: back to back)",
    )
    parser.add_argument("--only", action="append", help="limit to these labels (repeatable)")
    args = parser.parse_args()
    peers = [peer for peer in PEERS if not args.only or peer.label in args.only]
    compile_bytecode()
    print("measuring spawn -> tools/list ...", file=sys.stderr, flush=True)
    starts = cold_starts(peers, args.spawns)
    print("measuring sequential calls ...", file=sys.stderr, flush=True)
    calls = sequential_calls(peers, args.calls, args.batch)
    results: dict[str, tuple[float, float, float, float, float]] = {}
    for peer in peers:
        print(f"measuring agents connect of {peer.label} ...", file=sys.stderr, flush=True)
        connect = agents_connect(peer, args.agents_runs)
        results[peer.label] = (starts[peer.label], *calls[peer.label], connect)

    floor = results.get("floor loop")
    fast = results.get("FastMCP quiet")
    print(
        f"\nspawns={args.spawns} (+1 warm-up) calls={args.calls} batch={args.batch}"
        f" agents-runs={args.agents_runs}"
        f" python={sys.version.split()[0]} cpus={os.cpu_count()}\n"
    )
    header = (
        f"| {'server':16} | {'spawn->tools/list':>17} | {'x floor':>7} | {'call p50':>9} |"
        f" {'call p99':>9} | {'p50 x FastMCP':>13} | {'RSS MiB':>7} | {'agents connect+list':>19} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(cell)) for cell in header.split("|")[1:-1]) + "|")
    for label, (start, median, p99, rss, connect) in results.items():
        x_floor = f"{start / floor[0]:6.2f}x" if floor else "n/a"
        x_fast = f"{median / fast[1]:12.3f}x" if fast else "n/a"
        print(
            f"| {label:16} | {start * 1000:15.0f}ms | {x_floor:>7} | {median * 1e6:7.0f}us |"
            f" {p99 * 1e6:7.0f}us | {x_fast:>13} | {rss:7.1f} | {connect * 1000:17.0f}ms |"
        )
    tw = results.get("toolwire")
    if tw and floor and fast:
        print("\ntargets for toolwire (measured, not asserted):")
        checks = [
            ("cold start <= 1.25x floor loop", tw[0] / floor[0], 1.25),
            ("per call <= 0.10x FastMCP", tw[1] / fast[1], 0.10),
            ("RSS <= 40 MiB", tw[3], 40.0),
        ]
        for text, value, limit in checks:
            print(f"  {text:32} {value:8.3f}  {'met' if value <= limit else 'MISSED'}")


if __name__ == "__main__":
    main()
