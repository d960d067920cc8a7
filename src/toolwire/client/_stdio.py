"""The stdio transport under the `mcp` client: a child process in a session of its own, spoken
to in newline-delimited JSON-RPC. A closed stdout ends the connection at once; a server that
dies is described by its exit status and the last lines of its stderr; closing ends the whole
process group (stdin closed, SIGTERM, SIGKILL, each bounded); on Linux the child gets SIGTERM
when this process dies without cleaning up."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, TextIO

import anyio
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

__all__ = ["ChildProcess", "child_process_transport"]

logger = logging.getLogger("toolwire.client")

_LINE_LIMIT = 64 * 1024 * 1024
_STDERR_LINES = 40
_EXIT_WAIT = 2.0  # after stdin closes, then after SIGTERM
_STATUS_WAIT = 0.5
_STDERR_DRAIN = 1.0  # after the child ended, for the last of its stderr to be read
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class ChildProcess:
    """The running child, the tail of its stderr and the last stdout line that was not JSON-RPC."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self.junk: str | None = None

    async def describe_end(self) -> str:
        """How the child ended (given a moment to exit) or that it still runs, with its stderr."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.process.wait()), _STATUS_WAIT)
        code = self.process.returncode
        state = "is still running" if code is None else f"exited with status {code}"
        tail = "".join(self.stderr_tail).strip()
        return f"{state}; its stderr ended with:\n{tail}" if tail else state

    async def end(self) -> None:
        """Close stdin, then SIGTERM, then SIGKILL the process group, each step bounded."""
        process = self.process
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        for step in (None, signal.SIGTERM, signal.SIGKILL):
            if step is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, step)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), _EXIT_WAIT)
            if process.returncode is not None:
                break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever the child left in its group


@asynccontextmanager
async def child_process_transport(
    params: Mapping[str, Any],
    label: str,
    started: list[ChildProcess] | None = None,
    errlog: TextIO | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Start the child and yield the `(read, write)` streams the `mcp` client takes.

    `started` receives the `ChildProcess`; `errlog` takes the child's stderr lines (None: our
    `sys.stderr`, looked up at each line so that a redirection is honoured).
    """
    cwd = params.get("cwd")
    process = await asyncio.create_subprocess_exec(
        params["command"],
        *params.get("args", []),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(cwd) if cwd is not None else None,
        env={**get_default_environment(), **(params.get("env") or {})},
        start_new_session=True,
        limit=_LINE_LIMIT,
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,
    )
    child = ChildProcess(process)
    if started is not None:
        started.append(child)
    encoding = params.get("encoding", "utf-8")
    errors = params.get("encoding_error_handler", "strict")
    to_client, from_child = anyio.create_memory_object_stream[SessionMessage | Exception](32)
    to_child, from_client = anyio.create_memory_object_stream[SessionMessage](32)
    assert process.stdout is not None and process.stdin is not None and process.stderr is not None
    stdout, stdin, stderr = process.stdout, process.stdin, process.stderr

    async def read_stdout() -> None:
        async with to_client:
            while True:
                try:
                    raw = await stdout.readline()
                except (ValueError, asyncio.LimitOverrunError) as error:
                    await to_client.send(error)
                    continue
                if not raw:
                    return  # end of file: closing the stream fails the pending requests
                text = raw.decode(encoding, errors).strip()
                if not text:
                    continue
                try:
                    message = jsonrpc_message_adapter.validate_json(text)
                except Exception as error:
                    logger.warning("MCP server %r wrote a line that is not JSON-RPC: %.200s",
                                   label, text)  # fmt: skip
                    child.junk = text[:200]
                    await to_client.send(error)
                    continue
                await to_client.send(SessionMessage(message))

    async def write_stdin() -> None:
        async with from_client:
            async for item in from_client:
                line = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                try:
                    stdin.write(line.encode(encoding, errors) + b"\n")
                    await stdin.drain()
                except (BrokenPipeError, ConnectionResetError):
                    return  # the child is gone; reading its stdout reports it

    stderr_done = anyio.Event()

    async def read_stderr() -> None:
        try:
            while True:
                raw = await stderr.readline()
                if not raw:
                    return
                line = raw.decode(encoding, "replace")
                child.stderr_tail.append(line)
                with contextlib.suppress(Exception):
                    sink = errlog if errlog is not None else sys.stderr
                    sink.write(line)
                    sink.flush()
        finally:
            stderr_done.set()

    # stderr is read outside the pipes' task group: a child that dies says why on stderr
    # while its stdout closes, and those last words must be read before we describe it.
    async with anyio.create_task_group() as outer:
        outer.start_soon(read_stderr)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(read_stdout)
                group.start_soon(write_stdin)
                try:
                    yield from_child, to_child
                finally:
                    group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await child.end()
                with anyio.move_on_after(_STDERR_DRAIN):
                    await stderr_done.wait()
            outer.cancel_scope.cancel()
