"""A client that pipes the server's stderr and never reads it: toolwire's own log lines (one
traceback per failed call) must not stall the server once the pipe is full."""

from __future__ import annotations

import logging
import os
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from tests.transports._proc import INIT, call, frame, read_message, send, spawn, toolwire_run

from toolwire.transports.stdio._stderr_log import QUEUE_LIMIT, BackgroundStderrHandler

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

SERVER = textwrap.dedent(
    '''
    from toolwire import Server

    server = Server("failing", version="1")

    @server.tool
    def boom(n: int) -> str:
        """Always fails, with a long message."""
        raise RuntimeError(f"failure {n} " + "x" * 500)

    @server.tool
    async def aboom(n: int) -> str:
        """Always fails, on the event loop."""
        raise RuntimeError(f"failure {n} " + "y" * 500)
    '''
)
CALLS = 400  # about 1 KiB of log each: far past the 64 KiB a pipe holds


@pytest.mark.parametrize("tool", ["boom", "aboom"])
def test_failed_calls_are_answered_while_nobody_reads_stderr(tmp_path: Path, tool: str) -> None:
    script = tmp_path / "failing.py"
    script.write_text(SERVER, encoding="utf-8")
    proc = spawn(toolwire_run(script))  # stderr is a pipe this test reads only at the end
    send(proc, frame(INIT))
    assert read_message(proc)["id"] == 1
    replies: dict[int, str] = {}

    def read_replies() -> None:
        while len(replies) < CALLS:
            message = read_message(proc)
            replies[message["id"]] = message["result"]["content"][0]["text"]

    reader = threading.Thread(target=read_replies, daemon=True)
    reader.start()
    send(proc, *(call(10 + n, tool, {"n": n}) for n in range(CALLS)))
    reader.join(60)
    if reader.is_alive():
        proc.kill()
        proc.communicate(timeout=30)
        raise AssertionError(f"only {len(replies)} of {CALLS} calls answered: logging stalled")
    assert sorted(replies) == [10 + n for n in range(CALLS)]
    assert all(
        text.startswith("An error occurred while running the tool") for text in replies.values()
    )
    assert proc.stdin is not None
    proc.stdin.close()
    # Exiting does not hang on the stuck stderr either: nobody has read it yet.
    assert proc.wait(timeout=30) == 0
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read() == b""
    log = proc.stderr.read().decode()
    assert log.startswith("WARNING toolwire.tools: Tool ")  # the first lines got through
    assert "failure 0 " in log


def test_lines_past_the_limit_are_dropped_counted_and_never_wait(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()
    stream = os.fdopen(write_fd, "w", encoding="utf-8")
    handler = BackgroundStderrHandler(stream)
    log = logging.getLogger("toolwire.tests.unread_stderr")
    log.propagate = False
    log.addHandler(handler)
    try:
        total = QUEUE_LIMIT + 2000  # ~220 bytes each: the pipe holds a few hundred of them
        for n in range(total):  # nobody reads the pipe: each call still returns
            log.warning("line %d %s", n, "z" * 200)
        handler.flush()  # gives up after a bounded wait
        with os.fdopen(read_fd, "rb") as pipe:
            chunks = []
            reader = threading.Thread(target=lambda: chunks.append(pipe.read()), daemon=True)
            reader.start()
            handler.flush()  # now someone reads: everything left is written
            stream.close()
            reader.join(30)
    finally:
        log.removeHandler(handler)
    lines = b"".join(chunks).decode().splitlines()
    notes = [line for line in lines if "dropped" in line]
    dropped = sum(int(note.split()[2]) for note in notes)
    kept = [line for line in lines if line.startswith("line ")]
    assert notes  # one per time the queue overflowed (the writer may catch up in between)
    assert all(note.endswith(" log line(s) dropped: stderr was not read") for note in notes)
    assert len(kept) + dropped == total
    assert kept[0].startswith("line 0 ")
    assert len(kept) > QUEUE_LIMIT  # the queue and what the pipe held


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # fork() with threads running
def test_a_forked_child_still_gets_its_lines_written() -> None:
    """multiprocessing's fork start method: the writer thread is not copied into the child."""
    read_fd, write_fd = os.pipe()
    stream = os.fdopen(write_fd, "w", encoding="utf-8")
    handler = BackgroundStderrHandler(stream)
    log = logging.getLogger("toolwire.tests.forked")
    log.propagate = False
    log.addHandler(handler)
    try:
        log.warning("from the parent")  # the writer thread runs from here on
        handler.flush()
        pid = os.fork()
        if pid == 0:  # the child: log, flush, leave without running pytest's teardown
            log.warning("from the child")
            handler.flush()
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        log.removeHandler(handler)
        stream.close()
    with os.fdopen(read_fd, "rb") as pipe:
        assert pipe.read().decode().splitlines() == ["from the parent", "from the child"]
