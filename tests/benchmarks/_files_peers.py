"""The two filesystem servers compared by bench_files.py and attack_files.py, each driven over
real stdio with raw JSON-RPC lines: toolwire-files (this checkout) and the reference
`@modelcontextprotocol/server-filesystem`, installed with npm into a scratch directory (or
found in FILES_REFERENCE_DIR) and run on the project's Node 22."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests._node_tools import PREFIX

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "@modelcontextprotocol/server-filesystem"
REFERENCE_VERSION = os.environ.get("FILES_REFERENCE_VERSION", "2026.8.31")
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"},
}


def node() -> str:
    """Node 22 from the project's tools (scripts/install_node_tools.sh), else `node`."""
    candidate = PREFIX / "bin" / "node22"
    if os.access(candidate, os.X_OK):
        return str(candidate)
    found = shutil.which("node")
    if found is None:
        raise SystemExit("needs Node 22: run scripts/install_node_tools.sh")
    return found


def reference_entry(scratch: Path) -> Path:
    """The reference server's dist/index.js, installed with npm into `scratch` if needed."""
    given = os.environ.get("FILES_REFERENCE_DIR")
    prefix = Path(given) if given else scratch / "reference"
    entry = prefix / "node_modules" / REFERENCE / "dist" / "index.js"
    if not entry.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix),
             f"{REFERENCE}@{REFERENCE_VERSION}"],
            check=True, timeout=300,
        )  # fmt: skip
    return entry


def commands(scratch: Path, *directories: Path) -> dict[str, list[str]]:
    """The command line of each server, serving `directories`."""
    dirs = [str(d) for d in directories]
    ours = [sys.executable, str(ROOT / "tests" / "servers" / "files" / "_launch.py"), *dirs]
    return {
        "toolwire-files": ours,
        "reference": [node(), str(reference_entry(scratch)), *dirs],
    }


class Stdio:
    """One server process; every read is bounded by `timeout` (TimeoutError past it)."""

    def __init__(
        self, argv: list[str], timeout: float = 30.0, roots: list[str] | None = None
    ) -> None:
        self.argv = argv
        self.timeout = timeout
        self.roots = roots  # answered to roots/list when given (and declared in initialize)
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "0"},
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
            chunk = os.read(fd, 1 << 20)
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
        deadline = time.monotonic() + self.timeout
        while True:
            reply = json.loads(self._line(deadline))
            if reply.get("method") == "roots/list" and "id" in reply:
                listed = [{"uri": uri} for uri in self.roots or []]
                self.send({"jsonrpc": "2.0", "id": reply["id"], "result": {"roots": listed}})
                continue
            if reply.get("id") == self.next_id and "method" not in reply:
                return dict(reply)

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The `tools/call` reply (a result or a JSON-RPC error)."""
        return self.ask("tools/call", {"name": name, "arguments": arguments})

    def handshake(self) -> None:
        params = dict(INITIALIZE)
        if self.roots is not None:
            params["capabilities"] = {"roots": {"listChanged": True}}
        self.ask("initialize", params)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
            self.proc.kill()
            self.proc.wait(timeout=5)


def text_of(reply: dict[str, Any]) -> str:
    """Everything a reply says, as one string (for looking for a secret in it)."""
    return json.dumps(reply, ensure_ascii=False)


def is_error(reply: dict[str, Any]) -> bool:
    return "error" in reply or bool(reply.get("result", {}).get("isError"))
