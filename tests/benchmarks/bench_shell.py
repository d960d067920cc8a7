"""toolwire-shell beside DesktopCommander (`@wonderwhy-er/desktop-commander`) over stdio.

Run from the repository root (DesktopCommander installed with npm under DC_PREFIX, default
/tmp/twdc: `npm install --prefix /tmp/twdc --ignore-scripts @wonderwhy-er/desktop-commander@0.2.52`):

    .venv/bin/python -m tests.benchmarks.bench_shell [--spawns 5] [--calls 30]

Measured, for each server, interleaved round by round so both see the same moments of a shared
machine:

1. spawn -> first `tools/list` reply (a fresh process, `initialize`, `initialized`,
   `tools/list`): median over --spawns processes after one warm-up.
2. a `true` command round trip over one process (toolwire-shell: `shell`; DesktopCommander:
   `start_process`): median of --calls calls after 3 uncounted ones.
3. a command printing 10 MB (`head -c 10000000 /dev/zero | tr '\\0' a`): median time of 3
   calls, the reply's size, and the server's peak resident size afterwards (VmHWM).

Prints the figures and the ratios toolwire-shell / DesktopCommander (below 1: faster or
smaller). Asserts only that the replies are right, never anything about time.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DC_PREFIX = Path(os.environ.get("DC_PREFIX", "/tmp/twdc"))
DC_ENTRY = DC_PREFIX / "node_modules/@wonderwhy-er/desktop-commander/dist/index.js"
TEN_MB = "head -c 10000000 /dev/zero | tr '\\0' a"


class Peer:
    """One server process spoken to with JSON-RPC lines."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=str(ROOT),
        )
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.ids = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)
            if "id" in message and "method" not in message:
                self.replies.put(message)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        assert self.proc.stdin is not None
        line = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(line).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            reply = self.replies.get(timeout=120)
            if reply["id"] == self.ids:
                assert "error" not in reply, reply
                return dict(reply["result"])

    def open(self) -> float:
        """Initialize and list tools; seconds from spawn to the tools/list reply."""
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()
        tools = self.request("tools/list", {})["tools"]
        assert tools
        return time.perf_counter() - self.started

    def peak_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def toolwire_shell() -> Peer:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "src"), str(ROOT / "servers" / "shell"), env.get("PYTHONPATH", "")]
    )
    return Peer([sys.executable, "-m", "toolwire_shell"], env)


def desktop_commander() -> Peer:
    home = DC_PREFIX / "home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(home))
    return Peer(["node", str(DC_ENTRY)], env)


def run_command(peer: Peer, name: str, command: str) -> str:
    """Run `command` to its end; the text the client got back."""
    if name == "toolwire-shell":
        result = peer.request("tools/call", {"name": "shell", "arguments": {"commands": [command]}})
        assert result["isError"] is False, result
        return str(result["content"][0]["text"])
    result = peer.request(
        "tools/call",
        {"name": "start_process", "arguments": {"command": command, "timeout_ms": 60000}},
    )
    assert not result.get("isError"), result
    return "".join(str(block.get("text", "")) for block in result["content"])


def main() -> None:
    cli = argparse.ArgumentParser()
    cli.add_argument("--spawns", type=int, default=5)
    cli.add_argument("--calls", type=int, default=30)
    options = cli.parse_args()
    if not DC_ENTRY.is_file():
        raise SystemExit(f"DesktopCommander is not installed at {DC_ENTRY} (see the docstring)")
    makers = {"toolwire-shell": toolwire_shell, "DesktopCommander": desktop_commander}
    spawn: dict[str, list[float]] = {name: [] for name in makers}
    for round_ in range(options.spawns + 1):
        for name, make in makers.items():
            peer = make()
            took = peer.open()
            peer.close()
            if round_:
                spawn[name].append(took)
    peers = {name: make() for name, make in makers.items()}
    for peer in peers.values():
        peer.open()
    trip: dict[str, list[float]] = {name: [] for name in makers}
    for index in range(options.calls + 3):
        for name, peer in peers.items():
            began = time.perf_counter()
            run_command(peer, name, "true")
            if index >= 3:
                trip[name].append(time.perf_counter() - began)
    big: dict[str, list[float]] = {name: [] for name in makers}
    size: dict[str, int] = {}
    for _ in range(3):
        for name, peer in peers.items():
            began = time.perf_counter()
            text = run_command(peer, name, TEN_MB)
            big[name].append(time.perf_counter() - began)
            size[name] = len(text)
    peak = {name: peer.peak_kib() for name, peer in peers.items()}
    for peer in peers.values():
        peer.close()

    ms = {
        "spawn -> tools/list (ms)": {n: statistics.median(v) * 1000 for n, v in spawn.items()},
        "`true` round trip (ms)": {n: statistics.median(v) * 1000 for n, v in trip.items()},
        "10 MB output (ms)": {n: statistics.median(v) * 1000 for n, v in big.items()},
        "10 MB reply size (bytes)": {n: float(size[n]) for n in makers},
        "peak RSS after (MiB)": {n: peak[n] / 1024 for n in makers},
    }
    print(f"{'':28}{'toolwire-shell':>16}{'DesktopCommander':>18}{'ratio':>8}")
    for label, values in ms.items():
        ours, theirs = values["toolwire-shell"], values["DesktopCommander"]
        ratio = ours / theirs if theirs else float("nan")
        print(f"{label:28}{ours:16.1f}{theirs:18.1f}{ratio:8.2f}")


if __name__ == "__main__":
    main()
