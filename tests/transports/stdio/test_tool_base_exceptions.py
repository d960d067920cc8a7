"""Issue #11: a tool that raises a BaseException (SystemExit from argparse, KeyboardInterrupt,
GeneratorExit, its own CancelledError, a custom subclass) fails its call like any other
exception; the server answers and keeps serving. A real SIGINT/SIGTERM still ends it."""

from __future__ import annotations

import signal
import textwrap
from typing import Any

import pytest
from tests.transports._proc import (
    INIT,
    call,
    frame,
    read_message,
    send,
    signal_and_collect,
    spawn,
    toolwire_run,
)

SERVER = textwrap.dedent(
    '''
    import argparse, asyncio, sys
    from toolwire import Server, function_tool, FunctionTool

    server = Server("raisers", version="1")

    class Meltdown(BaseException):
        """Not an Exception."""

    RAISERS = {
        "exit2": lambda: sys.exit(2),
        "exit3": lambda: (_ for _ in ()).throw(SystemExit(3)),
        "keyboard": lambda: (_ for _ in ()).throw(KeyboardInterrupt()),
        "generator_exit": lambda: (_ for _ in ()).throw(GeneratorExit()),
        "cancelled": lambda: (_ for _ in ()).throw(asyncio.CancelledError()),
        "meltdown": lambda: (_ for _ in ()).throw(Meltdown("core temperature")),
    }

    @server.tool
    def cli(argv: list[str]) -> str:
        """Run a small argparse CLI."""
        parser = argparse.ArgumentParser(prog="cli")
        parser.add_argument("--n", type=int, required=True)
        return str(parser.parse_args(argv).n * 2)

    @server.tool
    def raise_sync(kind: str) -> str:
        """Raise the named BaseException from a worker thread."""
        RAISERS[kind]()
        return "unreachable"

    @server.tool
    async def raise_async(kind: str) -> str:
        """Raise the named BaseException on the event loop."""
        RAISERS[kind]()
        return "unreachable"

    async def hand_built(ctx, arguments: str) -> str:
        raise SystemExit(4)

    server.add_tool(FunctionTool(
        name="hand_built", description="Raises SystemExit itself.",
        params_json_schema={"type": "object", "properties": {}, "additionalProperties": False},
        on_invoke_tool=hand_built,
    ))

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    async def forever() -> str:
        """Sleep until cancelled."""
        await asyncio.sleep(3600)
        return "never"
    '''
)
KINDS = ["exit2", "exit3", "keyboard", "generator_exit", "cancelled", "meltdown"]
SDK_TEXT = "An error occurred while running the tool. Please try again."


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[Any, Any], bytes, int]:
    script = tmp_path_factory.mktemp("raisers") / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    proc = spawn(toolwire_run(script))
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    requests = [call(2, "cli", {"argv": ["--n", "x"]}), call(3, "cli", {"argv": ["--n", "21"]})]
    for i, kind in enumerate(KINDS):
        requests.append(call(10 + i, "raise_sync", {"kind": kind}))
        requests.append(call(20 + i, "raise_async", {"kind": kind}))
    requests += [call(30, "hand_built"), call(40, "add", {"a": 2, "b": 3})]
    send(proc, *requests)
    expected = {2, 3, 30, 40} | {10 + i for i in range(6)} | {20 + i for i in range(6)}
    replies: dict[Any, Any] = {}
    while not expected <= set(replies):
        message = read_message(proc)
        replies[message["id"]] = message
    # A cancellation the client asks for still cancels: no reply for it, the server goes on.
    send(proc, call(50, "forever"))
    send(
        proc,
        frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 50}}),
    )
    send(proc, call(51, "add", {"a": 1, "b": 1}))
    after = read_message(proc)
    replies[after["id"]] = after
    _, err = signal_and_collect(proc, signal.SIGINT)
    return replies, err, proc.returncode


def test_argparse_exit_is_a_failed_call_not_an_exit(
    served: tuple[dict[Any, Any], bytes, int],
) -> None:
    replies, err, _ = served
    assert replies[2]["result"] == {
        "content": [{"type": "text", "text": SDK_TEXT}],
        "isError": True,
    }
    assert replies[3]["result"]["content"][0]["text"] == "42"
    assert b"Tool 'cli' failed: ToolAbortedError: the tool raised SystemExit: 2" in err
    assert b"argument --n: invalid int value: 'x'" in err  # argparse's own message, on stderr


@pytest.mark.parametrize("offset", range(len(KINDS)), ids=KINDS)
def test_every_base_exception_fails_only_its_call(
    served: tuple[dict[Any, Any], bytes, int], offset: int
) -> None:
    replies, err, _ = served
    for request_id in (10 + offset, 20 + offset):  # raise_sync, raise_async
        result = replies[request_id]["result"]
        assert result == {"content": [{"type": "text", "text": SDK_TEXT}], "isError": True}
    assert err.count(b"Tool 'raise_sync' failed: ToolAbortedError") == len(KINDS)
    assert err.count(b"Tool 'raise_async' failed: ToolAbortedError") == len(KINDS)
    assert b"Meltdown: core temperature" in err  # the original is in the logged traceback


def test_a_hand_built_tool_raising_system_exit_is_answered(
    served: tuple[dict[Any, Any], bytes, int],
) -> None:
    replies, err, _ = served
    assert replies[30]["result"] == {
        "content": [{"type": "text", "text": SDK_TEXT}],
        "isError": True,
    }
    assert b"Tool 'hand_built' failed: ToolAbortedError: the tool raised SystemExit: 4" in err


def test_the_server_keeps_serving_and_a_real_sigint_still_ends_it(
    served: tuple[dict[Any, Any], bytes, int],
) -> None:
    replies, err, code = served
    assert replies[40]["result"]["structuredContent"] == {"result": 5}
    assert 50 not in replies  # cancelled by the client: no reply, as before
    assert replies[51]["result"]["structuredContent"] == {"result": 2}
    assert code == 0
    assert b"a tools/call task failed" not in err
