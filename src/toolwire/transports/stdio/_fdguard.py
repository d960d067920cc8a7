"""Own the process's stdin and stdout for the wire; give user code stderr instead.

`protect_stdout()` keeps fds 0 and 1 on private descriptors and points fd 1 at stderr and fd 0
at the null device. The wire is read and written as bytes without touching O_NONBLOCK (the open
file may be shared with the parent): readiness comes from the event loop, and writes go in
PIPE_BUF pieces so a ready pipe never blocks the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import select
import stat
import sys
from collections import deque

__all__ = ["FdReader", "FdWriter", "protect_stdout"]

_PIPE_BUF = getattr(select, "PIPE_BUF", 512)
_POLLOUT: int = getattr(select, "POLLOUT", 4)  # absent on Windows, where nothing is polled
_READ_CHUNK = 1 << 16


_wire: tuple[int, int] | None = None  # (read fd, write fd) once protected


def protect_stdout() -> tuple[int, int]:
    """Take stdin/stdout for the wire; user code sees stderr as stdout. Idempotent.

    Returns:
        The private (read, write) file descriptors of the wire.
    """
    global _wire  # noqa: PLW0603 - one wire per process
    if _wire is not None:
        return _wire
    _fill_closed_standard_fds()
    write_fd = os.dup(1)  # os.dup: the copy is not inheritable by child processes
    read_fd = os.dup(0)
    if _same_stream(1, 2):
        # The client merged stderr into stdout (seen on Windows launchers): anything written
        # to stderr would land on the wire, so user output and logs are discarded instead.
        _null_onto(2, os.O_WRONLY)
    os.dup2(2, 1)
    # User output still in Python's buffers (a print() at import time) lands on stderr now.
    for stream in (sys.stdout, sys.__stdout__):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    _null_onto(0, os.O_RDONLY)
    # A fresh UTF-8 text stream on fd 1 (now stderr), whatever the locale.
    sys.stdout = io.TextIOWrapper(
        io.FileIO(1, "wb", closefd=False),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
        write_through=True,
    )
    _wire = (read_fd, write_fd)
    return _wire


def _fill_closed_standard_fds() -> None:
    """Open the null device on any of fds 0-2 the launcher left closed (else the wire's `dup`
    would take that number)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            _null_onto(fd, os.O_RDONLY if fd == 0 else os.O_WRONLY)


def _null_onto(fd: int, flags: int) -> None:
    """Point `fd` at the null device, opened with `flags`."""
    null = os.open(os.devnull, flags)
    if null != fd:  # else the lowest free number was `fd` itself
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)


def _same_stream(fd1: int, fd2: int) -> bool:
    """Whether two descriptors are one pipe or socket (a shared terminal is fine)."""
    try:
        first, second = os.fstat(fd1), os.fstat(fd2)
    except OSError:
        return False
    shared = stat.S_ISFIFO(first.st_mode) or stat.S_ISSOCK(first.st_mode)
    # st_ino 0: no identity to compare (Windows pipes), so no verdict.
    return shared and first.st_ino != 0 and os.path.samestat(first, second)


def _selectable(fd: int) -> bool:
    """Whether the event loop can watch `fd` (pipes, sockets, ttys; not regular files)."""
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


class FdReader:
    """Async chunk reads from a blocking descriptor, registered once with asyncio's selector;
    reading pauses while 1 MiB is unconsumed."""

    _HIGH_WATER = 1 << 20

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._selectable = _selectable(fd)
        self._chunks: deque[bytes] = deque()
        self._buffered = 0
        self._eof = False
        self._error: OSError | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._registered = False
        self._waiter: asyncio.Future[None] | None = None

    async def read(self) -> bytes:
        """Up to 64 KiB; b"" at end of stream. Raises OSError if reading failed."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            if self._selectable and not self._register():
                self._selectable = False
        if not self._selectable:
            return await self._read_directly()
        while not self._chunks and not self._eof and self._error is None:
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        if self._chunks:
            chunk = self._chunks.popleft()
            self._buffered -= len(chunk)
            if not self._registered and not self._eof and self._buffered < self._HIGH_WATER:
                self._register()
            return chunk
        if self._error is not None:
            raise self._error
        return b""

    def close(self) -> None:
        """Stop watching the descriptor (it is not closed)."""
        self._unregister()

    def _register(self) -> bool:
        assert self._loop is not None
        try:
            self._loop.add_reader(self._fd, self._on_readable)
        except (OSError, NotImplementedError, ValueError):  # /dev/null, Windows, closed fd
            return False
        self._registered = True
        return True

    def _unregister(self) -> None:
        if self._registered and self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._fd)
        self._registered = False

    def _on_readable(self) -> None:
        try:
            chunk = os.read(self._fd, _READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return  # spurious readiness (someone else set O_NONBLOCK); wait for the next
        except OSError as error:
            self._error = error
            chunk = b""
        if chunk:
            self._chunks.append(chunk)
            self._buffered += len(chunk)
            if self._buffered >= self._HIGH_WATER:
                self._unregister()
        else:
            self._eof = True
            self._unregister()
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def _read_directly(self) -> bytes:
        if sys.platform == "win32":
            import anyio

            # No selector for pipes on Windows: a worker thread waits for the data.
            return await anyio.to_thread.run_sync(
                os.read, self._fd, _READ_CHUNK, abandon_on_cancel=True
            )
        # A regular file does not wait on a peer.
        return os.read(self._fd, _READ_CHUNK)


class FdWriter:
    """Async whole-frame writes to a blocking descriptor, never blocking the event loop."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._selectable = _selectable(fd)
        poll = getattr(select, "poll", None)
        self._poller = poll() if poll is not None and self._selectable else None
        if self._poller is not None:  # registered once: every frame asks it
            self._poller.register(fd, _POLLOUT)

    async def write(self, data: bytes) -> None:
        """Write all of `data`; raises OSError (e.g. BrokenPipeError) if the peer is gone."""
        view: bytes | memoryview = data if len(data) <= _PIPE_BUF else memoryview(data)
        while view:
            if self._poller is not None and not self._poller.poll(0):
                import anyio

                await anyio.wait_writable(self._fd)
            # A ready pipe takes PIPE_BUF bytes without blocking; a file takes anything.
            piece = view[:_PIPE_BUF] if self._selectable and len(view) > _PIPE_BUF else view
            try:
                written = os.write(self._fd, piece)
            except BlockingIOError:
                import anyio

                await anyio.sleep(0.001)
                continue
            view = view[written:]
