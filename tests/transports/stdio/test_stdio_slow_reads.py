"""Over a real stdio process, a slow resource read or prompt does not hold the frames after it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.transports._proc import INIT, call, exchange, frame, spawn, toolwire_run

SERVER = textwrap.dedent(
    '''
    import threading

    import anyio.to_thread

    from toolwire import Server

    server = Server("slow-reads")
    RELEASED = threading.Event()

    @server.tool
    def release() -> str:
        """Let the waiting read and prompt finish."""
        RELEASED.set()
        return "released"

    @server.resource("slow://held")
    def held() -> str:
        return "released" if RELEASED.wait(20) else "never released"

    @server.prompt
    async def waiting() -> str:
        released = await anyio.to_thread.run_sync(RELEASED.wait, 20)
        return "released" if released else "never released"
    '''
)


def test_a_read_and_a_prompt_waiting_for_a_later_frame_do_not_hold_it(tmp_path: Path) -> None:
    script = tmp_path / "slow_reads.py"
    script.write_text(SERVER)
    proc = spawn(toolwire_run(script))

    def request(request_id: int, method: str, params: dict[str, object]) -> bytes:
        return frame({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})

    frames = [
        frame(INIT),
        frame({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        request(2, "resources/read", {"uri": "slow://held"}),
        request(3, "prompts/get", {"name": "waiting"}),
        request(4, "ping", {}),
        call(5, "release"),
    ]
    # stdin ends after these frames: the server answers what is in flight, then exits.
    messages, stderr, code = exchange(proc, frames)
    assert code == 0, stderr
    order = [message["id"] for message in messages if "id" in message]
    assert order[:2] == [1, 4], order  # the ping went past both
    # The read and the prompt end only once the tool call after them has run (their texts
    # say "released"); its reply and theirs then come in whatever order their threads finish.
    assert sorted(order[2:]) == [2, 3, 5], order
    replies = {message["id"]: message for message in messages if "id" in message}
    assert replies[2]["result"]["contents"][0]["text"] == "released"
    assert replies[3]["result"]["messages"][0]["content"]["text"] == "released"
    assert json.dumps(replies[4]["result"]) == "{}"
