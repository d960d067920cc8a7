"""MCP over streamable HTTP: toolwire beside FastMCP, the official MCPServer and a floor.

Run from the repository root (wrk comes from scripts/install_system_tools.sh):

    .venv/bin/python -m tests.benchmarks.bench_http [--duration 10] [--connections 32]
        [--only toolwire] [--mode stateless-json] [--rounds 1]

`tools/call add(2, 3)` driven by wrk (compiled, with a Lua script: a Python client would be
the bottleneck on two cores) over `--connections` keep-alive connections, against each server
started as its users start it, alone on 127.0.0.1 under uvicorn in its own process:

- floor: a bare Starlette endpoint that parses the JSON-RPC body, validates the arguments
  with a pydantic model and answers (servers/floor_http.py);
- FastMCP: `mcp.run(transport="http", ...)` (servers/fastmcp_http.py);
- MCPServer: the official SDK's `streamable_http_app(...)` under uvicorn
  (servers/mcpserver_http.py);
- toolwire: `toolwire run servers/tw_server.py --transport http ...`;
- tw-async: the same with `async def add` (servers/tw_async_server.py): a sync tool's body
  runs in a worker thread, as in the Agents SDK, and this row shows what that hop costs.

Two modes:

- stateless-json: `stateless` + `json_response` (every server; the floor is always that);
  no `initialize`, one JSON body per POST.
- session-sse: sessions, answers as SSE streams (no floor). Before wrk starts, as many
  sessions as connections are opened (`initialize` + `notifications/initialized`); the Lua
  script hands each wrk thread its share of them and cycles through that share, so every
  session carries about the same load (wrk's Lua API cannot pin a session to a connection).
  Request ids are unique within a session.

Each target is checked before and after it is measured: a sample call must answer 5 (a fast
stream of 4xx would be meaningless) and wrk must report no non-2xx answer, no timeout and no
socket error, else its row says INVALID. One warm-up run (not counted) precedes the measured
one. Printed: req/s, p50/p99 latency (wrk's), RSS of the server process after the run, and
ratios: toolwire / floor, toolwire / FastMCP, toolwire / MCPServer. The issue's targets
(stateless JSON >= 0.8x floor; session-sse >= 5x FastMCP) are reported, never asserted.
Every wait is bounded. `--rounds` > 1 interleaves the targets round after round and reports
medians, so that a noisy spell of the shared machine weighs on all of them alike.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "benchmarks" / "servers"
PATH = "/mcp"
PROTOCOL_VERSION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"
START_TIMEOUT = 60.0
REPLY_TIMEOUT = 30.0
STATELESS, SESSION = "stateless-json", "session-sse"
MODE_FLAGS = {STATELESS: ("--stateless", "--json-response"), SESSION: ()}


@dataclass(frozen=True)
class Peer:
    label: str
    argv: tuple[str, ...]  # after the program; --port and the mode flags are appended
    modes: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    program: str = ""  # the executable ("": this Python interpreter)


PEERS = [
    Peer("floor", (str(SERVERS / "floor_http.py"),), (STATELESS,)),
    Peer(
        "toolwire",
        ("-m", "toolwire", "run", str(SERVERS / "tw_server.py"), "--transport", "http"),
        (STATELESS, SESSION),
    ),
    Peer(
        "tw-async",
        ("-m", "toolwire", "run", str(SERVERS / "tw_async_server.py"), "--transport", "http"),
        (STATELESS,),
    ),
    Peer("MCPServer", (str(SERVERS / "mcpserver_http.py"),), (STATELESS, SESSION)),
    Peer(
        "FastMCP",
        (str(SERVERS / "fastmcp_http.py"),),
        (STATELESS, SESSION),
        (("FASTMCP_SHOW_SERVER_BANNER", "false"), ("FASTMCP_CHECK_FOR_UPDATES", "off")),
    ),
]


@dataclass
class Measure:
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    rss_mib: float
    problem: str = ""  # why the row cannot be trusted ("" when it can)
    cpu_us: float = float("nan")  # the server's CPU time per request (all its threads)


# --- talking to a server from Python (set-up and checks only, never the load) ------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _post(
    port: int, message: dict[str, Any], session: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    headers = {
        "Content-Type": "application/json",
        "Accept": ACCEPT,
        "MCP-Protocol-Version": PROTOCOL_VERSION,
    }
    if session is not None:
        headers["Mcp-Session-Id"] = session
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REPLY_TIMEOUT)
    try:
        connection.request("POST", PATH, body=json.dumps(message).encode(), headers=headers)
        response = connection.getresponse()
        body = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        connection.close()


def _reply(headers: dict[str, str], body: bytes, request_id: int) -> dict[str, Any]:
    """The JSON-RPC reply to `request_id` in a JSON body or an SSE stream."""
    if headers.get("content-type", "").startswith("text/event-stream"):
        candidates = [
            json.loads(line[5:])
            for line in body.decode().splitlines()
            if line.startswith("data:") and line[5:].strip()
        ]
    else:
        candidates = [json.loads(body)]
    for message in candidates:
        if isinstance(message, dict) and message.get("id") == request_id:
            return message
    raise AssertionError(f"no reply to {request_id} in {body[:500]!r}")


def open_session(port: int) -> str:
    status, headers, body = _post(
        port,
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench_http", "version": "1"},
            },
        },
    )
    assert status == 200, (status, body[:500])
    assert "result" in _reply(headers, body, 0), body[:500]
    session = headers.get("mcp-session-id")
    assert session, f"no Mcp-Session-Id in {headers}"
    status, _, body = _post(
        port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session
    )
    assert status in (200, 202), (status, body[:500])
    return session


def check_add(port: int, session: str | None, request_id: int = 7) -> str:
    """One `add(2, 3)`, as wrk sends it; returns the raw body (for the report) if it is 5."""
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
    }
    status, headers, body = _post(port, message, session)
    assert status == 200, (status, body[:500])
    result = _reply(headers, body, request_id).get("result")
    assert result and not result.get("isError"), body[:500]
    assert result["content"][0]["text"] == "5", body[:500]
    return body.decode(errors="replace")


# --- the server process ----------------------------------------------------------------------


@contextlib.contextmanager
def running(peer: Peer, mode: str, logs: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """Start `peer` in `mode` on a free port, wait until it answers TCP; stop it after."""
    port = _free_port()
    log_path = logs / f"{peer.label}-{mode}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [peer.program or sys.executable, *peer.argv, "--port", str(port), *MODE_FLAGS[mode]],
            cwd=ROOT,
            env={**os.environ, **dict(peer.env)},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{peer.label} exited: {log_path.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"{peer.label} did not listen in {START_TIMEOUT} s"
                    ) from None
                time.sleep(0.1)
        yield port, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process `pid` has used so far, over all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- wrk -------------------------------------------------------------------------------------

LUA_TEMPLATE = """
-- Generated by bench_http.py: POST one tools/call as JSON-RPC.
local sessions = {SESSIONS}
local threads = {THREADS}
local started = 0

function setup(thread)
  -- Runs in the main state: each thread gets every threads-th session, from its own offset,
  -- so two threads never share a session and request ids stay unique within each.
  thread:set("offset", started)
  started = started + 1
end

local base = {
  ["Content-Type"] = "application/json",
  ["Accept"] = "{ACCEPT}",
  ["MCP-Protocol-Version"] = "{VERSION}",
}
local mine = {}
local turn = 0
local next_id = 0

function init(args)
  for i = (offset or 0) + 1, #sessions, threads do
    mine[#mine + 1] = sessions[i]
  end
end

if #sessions == 0 then
  -- One prebuilt request, sent as is: no Lua runs per request.
  wrk.method = "POST"
  wrk.headers = base
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{CALL}}'
else
  function request()
    next_id = next_id + 1
    turn = turn % #mine + 1
    local headers = {}
    for k, v in pairs(base) do headers[k] = v end
    headers["Mcp-Session-Id"] = mine[turn]
    local body = '{"jsonrpc":"2.0","id":' .. next_id ..
      ',"method":"tools/call","params":{CALL}}'
    return wrk.format("POST", nil, headers, body)
  end
end

function done(summary, latency, requests)
  io.write(string.format(
    'BENCH {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,' ..
    '"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout))
end
"""


ADD_CALL = {"name": "add", "arguments": {"a": 2, "b": 3}}


def lua_script(sessions: list[str], threads: int, call: dict[str, Any] | None = None) -> str:
    """wrk's script: POST `tools/call` with `call` as its params (default: add(2, 3))."""
    listed = "{" + ", ".join(json.dumps(session) for session in sessions) + "}"
    params = json.dumps(call or ADD_CALL, separators=(",", ":"))
    if "'" in params or "\\" in params:
        raise ValueError(f"the Lua script quotes params in '...': {params}")
    return (
        LUA_TEMPLATE.replace("{SESSIONS}", listed)
        .replace("{CALL}", params)
        .replace("{THREADS}", str(threads))
        .replace("{ACCEPT}", ACCEPT)
        .replace("{VERSION}", PROTOCOL_VERSION)
    )


def run_wrk(
    wrk: str, port: int, script: Path, seconds: float, connections: int, threads: int
) -> dict[str, int]:
    argv = [
        wrk,
        f"-t{threads}",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "10s",
        "-s",
        str(script),
        f"http://127.0.0.1:{port}{PATH}",
    ]
    completed = subprocess.run(
        argv, capture_output=True, text=True, timeout=seconds + 60, check=False
    )
    for line in completed.stdout.splitlines():
        if line.startswith("BENCH "):
            return dict(json.loads(line[6:]))
    raise RuntimeError(f"wrk printed no summary: {completed.stdout}{completed.stderr}")


def measure(
    peer: Peer, mode: str, args: argparse.Namespace, wrk: str, work: Path
) -> tuple[Measure, str]:
    """One target, start to end; returns the measure and one sample body."""
    with running(peer, mode, work) as (port, process):
        sessions = [open_session(port) for _ in range(args.connections)] if mode == SESSION else []
        first = sessions[0] if sessions else None
        sample = check_add(port, first)
        for session in sessions[1:]:
            check_add(port, session)
        script = work / f"{peer.label}-{mode}.lua"
        script.write_text(lua_script(sessions, args.threads))
        if args.warmup > 0:
            run_wrk(wrk, port, script, args.warmup, args.connections, args.threads)
        stats = run_wrk(wrk, port, script, args.duration, args.connections, args.threads)
        rss = rss_mib(process.pid)
        # Request ids go on from where the Lua script's counters may have reached.
        check_add(port, first, request_id=10**9)
    errors = {k: stats[k] for k in ("connect", "read", "write", "status", "timeout") if stats[k]}
    problem = f"wrk errors {errors}" if errors else ""
    if stats["requests"] == 0:
        problem = "no request completed"
    return (
        Measure(
            requests_per_s=stats["requests"] / (stats["duration_us"] / 1e6),
            p50_ms=stats["p50_us"] / 1000,
            p99_ms=stats["p99_us"] / 1000,
            rss_mib=rss,
            problem=problem,
        ),
        sample,
    )


def _median(measures: list[Measure]) -> Measure:
    return Measure(
        requests_per_s=statistics.median(m.requests_per_s for m in measures),
        p50_ms=statistics.median(m.p50_ms for m in measures),
        p99_ms=statistics.median(m.p99_ms for m in measures),
        rss_mib=max(m.rss_mib for m in measures),
        problem="; ".join(m.problem for m in measures if m.problem),
        cpu_us=statistics.median(m.cpu_us for m in measures),
    )


def report(results: dict[tuple[str, str], Measure], args: argparse.Namespace) -> None:
    print(
        f"\nconnections={args.connections} threads={args.threads} duration={args.duration}s"
        f" warmup={args.warmup}s rounds={args.rounds}"
        f" python={sys.version.split()[0]} cpus={os.cpu_count()}\n"
    )
    header = (
        f"| {'mode':14} | {'server':9} | {'req/s':>7} | {'p50 ms':>7} | {'p99 ms':>7} |"
        f" {'RSS MiB':>7} | {'tw / this':>9} | note"
    )
    print(header)
    print("|" + "|".join("-" * len(cell) for cell in header.split("|")[1:]) + "|")
    for (mode, label), m in results.items():
        tw = results.get((mode, "toolwire"))
        ratio = (
            f"{tw.requests_per_s / m.requests_per_s:8.2f}x"
            if tw and label != "toolwire" and m.requests_per_s
            else ""
        )
        note = f"INVALID: {m.problem}" if m.problem else ""
        print(
            f"| {mode:14} | {label:9} | {m.requests_per_s:7.0f} | {m.p50_ms:7.2f} |"
            f" {m.p99_ms:7.2f} | {m.rss_mib:7.1f} | {ratio:>9} | {note}"
        )
    checks = [
        (STATELESS, "floor", 0.8, "stateless JSON >= 0.8x floor"),
        (SESSION, "FastMCP", 5.0, "session + SSE >= 5x FastMCP"),
    ]
    lines = []
    for mode, label, target, text in checks:
        tw, peer = results.get((mode, "toolwire")), results.get((mode, label))
        if tw and peer and peer.requests_per_s:
            ratio = tw.requests_per_s / peer.requests_per_s
            verdict = "met" if ratio >= target else "MISSED"
            lines.append(f"  {text:30} {ratio:6.2f}x  {verdict}")
    if lines:
        print("\ntargets for toolwire (measured, not asserted):")
        print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--duration", type=float, default=10, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=2, help="uncounted seconds (0: none)")
    parser.add_argument("--connections", type=int, default=32, help="also the session count")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds (medians)")
    parser.add_argument("--only", action="append", help="limit to these servers (repeatable)")
    parser.add_argument(
        "--mode", action="append", choices=[STATELESS, SESSION], help="limit to these modes"
    )
    parser.add_argument("--show-sample", action="store_true", help="print one sample body each")
    args = parser.parse_args()
    if args.connections < args.threads:
        parser.error("--connections must be at least --threads (wrk needs one per thread)")
    wrk = shutil.which("wrk")
    if wrk is None:
        sys.exit("bench_http: wrk is not on PATH; run scripts/install_system_tools.sh")
    modes = args.mode or [STATELESS, SESSION]
    targets = [
        (mode, peer)
        for mode in modes
        for peer in PEERS
        if mode in peer.modes and (not args.only or peer.label in args.only)
    ]
    samples: dict[tuple[str, str], list[Measure]] = {(m, p.label): [] for m, p in targets}
    with tempfile.TemporaryDirectory(prefix="bench_http-") as folder:
        work = Path(folder)
        for round_number in range(args.rounds):
            for mode, peer in targets:
                print(
                    f"round {round_number + 1}/{args.rounds}: {mode} {peer.label} ...",
                    file=sys.stderr,
                    flush=True,
                )
                result, sample = measure(peer, mode, args, wrk, work)
                samples[(mode, peer.label)].append(result)
                if args.show_sample and round_number == 0:
                    print(f"  sample body: {sample.strip()[:300]}", file=sys.stderr)
    report({key: _median(measures) for key, measures in samples.items()}, args)


if __name__ == "__main__":
    main()
