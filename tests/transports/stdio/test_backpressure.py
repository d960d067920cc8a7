"""Issue #11: a client that stops reading its replies but goes on writing calls is slowed
down: the server stops reading ahead, its memory stays bounded, and every call is answered
once the client reads again."""

from __future__ import annotations

import json
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from tests.transports._proc import INIT, call, frame, read_message, send, spawn, toolwire_run

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SERVER = textwrap.dedent(
    '''
    import asyncio
    from toolwire import Server

    server = Server("echo", version="1")

    @server.tool
    def echo(text: str) -> str:
        """Return text as it is."""
        return text

    @server.tool
    async def slow_echo(text: str) -> str:
        """Return text after a while."""
        await asyncio.sleep(30)
        return text
    '''
)
CALLS = 1000
TEXT = "x" * 100_000


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _flood(tmp_path: Path, tool: str) -> tuple[float, float, list[int], object]:
    script = tmp_path / "echo_server.py"
    script.write_text(SERVER, encoding="utf-8")
    proc = spawn(toolwire_run(script))
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    # Warm up before the baseline: pydantic and both tools' models loaded, a worker started.
    send(proc, call(2, "echo", {"text": "warm"}), call(3, tool, {"text": "warm"}))
    warmed = {read_message(proc)["id"] for _ in range(2 if tool == "echo" else 1)}
    assert warmed == ({2, 3} if tool == "echo" else {2})
    time.sleep(0.2)
    baseline = _rss_mib(proc.pid)
    requests = [call(100 + i, tool, {"text": TEXT}) for i in range(CALLS)]

    def write_all() -> None:
        assert proc.stdin is not None
        try:
            for request in requests:  # blocks once the server stops reading
                proc.stdin.write(request)
            proc.stdin.flush()
        except BrokenPipeError:  # the test killed the server while this write was blocked
            pass

    writer = threading.Thread(target=write_all, daemon=True)
    writer.start()
    peak = baseline
    for _ in range(80):  # 4 s of the client not reading at all
        peak = max(peak, _rss_mib(proc.pid))
        time.sleep(0.05)
    return baseline, peak, [100 + i for i in range(CALLS)], (proc, writer)


def test_a_client_that_stops_reading_bounds_memory_and_gets_every_reply(tmp_path: Path) -> None:
    baseline, peak, ids, handles = _flood(tmp_path, "echo")
    proc, writer = handles  # type: ignore[misc]
    assert writer.is_alive()  # the server stopped reading: the client's writes block
    # 100 MB were offered; the server read ahead a bounded amount (it held 195 MB before).
    assert peak - baseline < 16, (baseline, peak)
    got = set()
    while len(got) < len(ids):  # the client reads again: everything comes
        message = read_message(proc)
        if message.get("id") in ids:
            assert message["result"]["content"][0]["text"] == TEXT
            got.add(message["id"])
    writer.join(30)
    assert not writer.is_alive()
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    proc.stdout.close()
    proc.stderr.close()


def test_slow_calls_are_bounded_by_their_requests_bytes_too(tmp_path: Path) -> None:
    """Calls that take 30 s: no reply is pending, yet requests stop being read once the
    calls running hold about 4 MiB of requests."""
    baseline, peak, _, handles = _flood(tmp_path, "slow_echo")
    proc, writer = handles  # type: ignore[misc]
    assert writer.is_alive()
    assert peak - baseline < 16, (baseline, peak)
    proc.kill()
    proc.communicate(timeout=30)
    json.dumps(peak)  # keep the figure printable in a failure
