"""A stdio server's stderr kept aside (`errlog=`) and progress notifications on `call_tool`."""

from __future__ import annotations

import io
import tempfile
from typing import Any

import pytest
from tests.client._support import bounded, script_params

import toolwire


@pytest.mark.parametrize("mode", ["auto", "handshake"])
def test_errlog_receives_the_servers_stderr(mode: str, capfd: pytest.CaptureFixture[str]) -> None:
    async def main(log: Any) -> None:
        async with toolwire.MCPServerStdio(
            params=script_params("notes"), errlog=log, protocol_mode=mode
        ) as server:
            await server.list_tools()

    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        bounded(lambda: main(log), 60)
        log.seek(0)
        assert log.read() == "notes server starting\n"
    assert "notes server starting" not in capfd.readouterr().err


def test_without_errlog_the_stderr_is_ours(capfd: pytest.CaptureFixture[str]) -> None:
    async def main() -> None:
        async with toolwire.MCPServerStdio(params=script_params("notes")) as server:
            await server.list_tools()

    bounded(main, 60)
    assert "notes server starting\n" in capfd.readouterr().err


def test_a_dying_servers_last_words_reach_errlog() -> None:
    params = {
        "command": script_params("notes")["command"],
        "args": ["-c", "import sys; sys.exit('boom: cannot bind')"],
    }
    log = io.StringIO()

    async def main() -> str:
        with pytest.raises(toolwire.UserError) as raised:
            async with toolwire.MCPServerStdio(params=params, errlog=log):
                pass
        return str(raised.value)

    message = bounded(main, 60)
    assert "exited with status 1" in message and "boom: cannot bind" in message
    assert log.getvalue() == "boom: cannot bind\n"


@pytest.mark.parametrize("mode", ["auto", "handshake"])
@pytest.mark.parametrize("checked", [True, False])
def test_progress_callback_hears_each_step(mode: str, checked: bool) -> None:
    heard: list[tuple[float, float | None, str | None]] = []

    async def note(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async def main() -> Any:
        async with toolwire.MCPServerStdio(
            params=script_params("notes"), errlog=io.StringIO(), protocol_mode=mode
        ) as server:
            call = server.call_tool if checked else server.call_tool_unchecked
            return await call("count", {"steps": 3}, progress_callback=note)

    result = bounded(main, 60)
    assert result.content[0].text == "counted"
    assert heard == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
