"""MCP over stdio: newline-delimited JSON-RPC on the process's own stdin and stdout (user output
goes to stderr), served inside `server.serving()`. A line longer than the limit is never buffered
whole: it is counted to its newline, then answered from its first bytes. The process ends cleanly
(exit code 0) on stdin EOF, SIGTERM, SIGINT and its parent's death, even during a slow start-up."""

from __future__ import annotations

import atexit
import contextlib
import functools
import logging
import secrets
import signal
import sys
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._process import (
    checked_grace,
    configure_logging,
    free_forked_children,
    release_threads,
    settle_heap_later,
)
from . import _deadline, _parent_watch
from ._fdguard import FdReader, FdWriter, protect_stdout

if TYPE_CHECKING:
    from ...protocol.session.serving import Servable
    from ...protocol.session.session import ServerSession

__all__ = [
    "DEFAULT_MAX_MESSAGE_BYTES",
    "HEAD_BYTES",
    "LineSplitter",
    "Oversized",
    "protect_stdout",
    "run_stdio",
    "serve_stdio",
]

logger = logging.getLogger("toolwire.stdio")

DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
SHUTDOWN_GRACE_SECONDS = 2.0
"""After stdin EOF, how long calls in flight may still run to reply (MCP's stdio client
signals soon after closing stdin)."""
DESCENDANT_GRACE_SECONDS = 0.5
"""At exit, how long the processes tools started get, after SIGTERM, before SIGKILL."""
STREAM_END_SECONDS = 1.0
"""On SIGTERM/SIGINT, how long ending the listen streams may take (a client not reading)."""


async def serve_stdio(
    server: Servable,
    *,
    max_message_bytes: int | None = None,
    shutdown_grace: float = SHUTDOWN_GRACE_SECONDS,
) -> None:
    """Serve `server` on the protected stdio until EOF, a signal, or the parent's exit.

    One JSON-RPC message per line (blank lines skipped, `\\r\\n` accepted); a line longer than
    `max_message_bytes` (default: the server's) is discarded unbuffered and answered with a
    JSON-RPC error. After EOF, calls in flight get `shutdown_grace` seconds to reply.

    Raises:
        Exception: What `server.serving()` raised on entry (a failed lifespan), as is.
    """
    import anyio

    limit = max_message_bytes or server.max_message_bytes or DEFAULT_MAX_MESSAGE_BYTES
    read_fd, write_fd = protect_stdout()
    _parent_watch.remember_parent()
    free_forked_children()
    reader = FdReader(read_fd)
    writer = FdWriter(write_fd)
    splitter = LineSplitter(limit)
    stop = _Stop()
    peer_gone = False

    async def send(frame: bytes) -> None:
        nonlocal peer_gone
        if peer_gone:
            return
        try:
            await writer.write(frame + b"\n")
        except OSError as error:  # EPIPE and friends: nobody is reading any more
            peer_gone = True
            logger.info("stdout closed by the client (%s); shutting down", error)
            stop("stdout closed")

    failure: Exception | None = None
    try:
        async with anyio.create_task_group() as watchers:
            watchers.start_soon(
                _parent_watch.watch, functools.partial(stop, "the parent process exited")
            )
            watchers.start_soon(_watch_signals, stop)
            await anyio.sleep(0)  # both watchers listen before the lifespan starts
            _deadline.watch_signals_too()
            try:
                with stop.starting:
                    async with (
                        server.serving() as open_session,
                        open_session(send, session_id=secrets.token_hex(16)) as session,
                    ):
                        stop.session = session
                        await _serve(session, reader, splitter)
                        _deadline.begin(shutdown_grace + _deadline.EXIT_SECONDS, "stdin closed")
                        # EOF: calls in flight may still finish and answer.
                        with anyio.move_on_after(shutdown_grace):
                            while not peer_gone and session.busy:
                                await anyio.sleep(0.005)
                        session.close()
            except Exception as error:  # raised below as is, not wrapped in a group
                failure = error
            watchers.cancel_scope.cancel()
    finally:
        reader.close()
    if failure is not None:
        raise failure


class _Stop:
    """Ends serving, whoever asks: cancels the start-up while there is no session yet, then
    closes the session (so the lifespan's exit is never cancelled)."""

    def __init__(self) -> None:
        import anyio

        self.starting = anyio.CancelScope()
        self.session: ServerSession | None = None

    def __call__(self, why: str) -> None:
        _deadline.begin(_deadline.EXIT_SECONDS, why)
        if self.session is None:
            self.starting.cancel()
        else:
            self.session.close()


async def _serve(session: ServerSession, reader: FdReader, splitter: LineSplitter) -> None:
    """Hand the session every frame, in order, until stdin ends (pausing while it is full)."""
    while True:
        try:
            chunk = await reader.read()
        except OSError as error:  # stdin itself failed: treat it as the end
            logger.info("reading stdin failed (%s); shutting down", error)
            chunk = b""
        for item in splitter.feed(chunk) if chunk else splitter.finish():
            await session.backlog.until_clear()
            if isinstance(item, Oversized):
                await session.reject_oversized(item.size, item.head)
            else:
                await session.receive(item)
        if not chunk:
            return


async def _watch_signals(stop: _Stop) -> None:
    """First SIGTERM/SIGINT: end the listen streams, then stop serving. A second: leave now."""
    import anyio

    if sys.platform == "win32" or threading.current_thread() is not threading.main_thread():
        return  # the event loop can only take signals in the main thread, and not on Windows
    try:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            seen = 0
            async for signum in signals:
                seen += 1
                if seen > 1:
                    _parent_watch.leave_now(0)
                name = signal.Signals(signum).name
                logger.info("received %s; shutting down", name)
                _deadline.begin(_deadline.EXIT_SECONDS, name)
                with anyio.move_on_after(STREAM_END_SECONDS):
                    if stop.session is not None:
                        await stop.session.end_streams()
                stop(name)
    finally:
        # asyncio just reset the handlers to the defaults: keep the rest of the shutdown quiet.
        _parent_watch.install_quiet_handlers()


async def _settled(serving: Coroutine[Any, Any, None]) -> None:
    settle_heap_later()  # this process is ours
    await serving


def run_stdio(
    server: Servable,
    *,
    max_message_bytes: int | None = None,
    shutdown_grace: float = SHUTDOWN_GRACE_SECONDS,
) -> None:
    """Blocking entry point used by `Server.run()` and `toolwire run`.

    Processes that tools started are stopped first; a sync tool stuck in a worker thread is
    left behind (the process exits 0 without it). The options are `serve_stdio`'s.

    Raises:
        Exception: What `server.serving()` raised on entry (a failed lifespan, logged).
    """
    import anyio

    checked_grace(shutdown_grace)
    protect_stdout()
    _parent_watch.arm()
    _deadline.enable(DESCENDANT_GRACE_SECONDS)
    configure_logging(background=True)  # a client may pipe stderr and never read it
    failed = True
    try:
        with contextlib.suppress(KeyboardInterrupt):  # a SIGINT before the loop took it
            anyio.run(
                _settled,
                serve_stdio(
                    server, max_message_bytes=max_message_bytes, shutdown_grace=shutdown_grace
                ),
            )
        failed = False
    finally:
        # A late signal stays quiet up to the end of interpreter finalization.
        _parent_watch.install_quiet_handlers()
        atexit.unregister(_parent_watch.block_termination_signals)  # once, however many runs
        atexit.register(_parent_watch.block_termination_signals)
        _parent_watch.end_descendants(DESCENDANT_GRACE_SECONDS)
        release_threads(1 if failed else 0, logger)
        _deadline.disarm()  # `Server.run()` may be called again


HEAD_BYTES = 4096  # how much of a refused line is kept (clients write "id" before "params")


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line longer than the limit: its full length and its first `HEAD_BYTES` bytes."""

    size: int
    head: bytes


class LineSplitter:
    """Split a byte stream into frames (stripped; blank lines skipped) and `Oversized` verdicts
    for lines over `limit` bytes (not counting the line ending)."""

    __slots__ = ("_buffer", "_head", "_limit", "_skipped")

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError("limit must be positive")
        self._limit = limit
        self._buffer = bytearray()
        self._skipped = -1  # >= 0 while discarding an oversized line: bytes seen so far
        self._head = b""  # the first bytes of the line being discarded

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        """Consume a chunk; return the frames and oversize verdicts it completed."""
        out: list[bytes | Oversized] = []
        *complete, rest = chunk.split(b"\n")
        for piece in complete:
            if self._skipped >= 0:
                out.append(Oversized(self._skipped + len(piece), self._head))
                self._skipped = -1
                self._head = b""
            elif self._buffer:
                self._buffer += piece
                self._emit(bytes(self._buffer), out)
                self._buffer = bytearray()
            else:
                self._emit(piece, out)
        if self._skipped >= 0:
            self._skipped += len(rest)
        else:
            self._buffer += rest
            if len(self._buffer) > self._limit + 1:  # +1: a lone "\r" may still follow
                self._skipped = len(self._buffer)
                self._head = bytes(self._buffer[:HEAD_BYTES])
                self._buffer = bytearray()
        return out

    def finish(self) -> list[bytes | Oversized]:
        """End of stream: a last line without a newline still counts as a frame."""
        out: list[bytes | Oversized] = []
        if self._skipped >= 0:
            out.append(Oversized(self._skipped, self._head))
        elif self._buffer:
            self._emit(bytes(self._buffer), out)
        self._buffer = bytearray()
        self._skipped = -1
        self._head = b""
        return out

    def _emit(self, line: bytes, out: list[bytes | Oversized]) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > self._limit:
            out.append(Oversized(len(line), line[:HEAD_BYTES]))
            return
        line = line.strip()
        if line:
            out.append(line)
