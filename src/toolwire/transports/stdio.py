"""MCP over stdio: newline-delimited JSON-RPC on the process's own stdin and stdout.

stdout belongs to the wire. `protect_stdout()` moves the real fd 1 to a private descriptor and
points fd 1 (and `sys.stdout`) at stderr, so a `print()` anywhere in user code, or even an
`os.write(1, ...)`, lands on stderr instead of corrupting the stream. Frames are bytes in and
out (UTF-8 whatever the locale). The process ends cleanly on stdin EOF, SIGTERM, SIGINT, and
when its parent dies.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ..server import Server

__all__ = ["protect_stdout", "run_stdio", "serve_stdio"]

logger = logging.getLogger("toolwire.stdio")

_wire: tuple[int, int] | None = None  # (read fd, write fd) once protected
_PARENT_POLL_SECONDS = 0.25
_CHUNK = 1 << 16


def protect_stdout() -> tuple[int, int]:
    """Take stdin/stdout for the wire; user code sees stderr as stdout. Idempotent.

    Returns:
        The (read, write) file descriptors of the wire.
    """
    global _wire  # noqa: PLW0603 - one wire per process
    if _wire is not None:
        return _wire
    sys.stdout.flush()
    write_fd = os.dup(1)
    read_fd = os.dup(0)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # a tool that reads stdin must not steal protocol frames
    os.close(devnull)
    sys.stdout = io.TextIOWrapper(
        open(1, "wb", buffering=0, closefd=False),  # noqa: SIM115 - lives as long as the process
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
    )
    _wire = (read_fd, write_fd)
    return _wire


def _configure_logging() -> None:
    """Give the toolwire logger a stderr handler unless the application configured logging."""
    toolwire_logger = logging.getLogger("toolwire")
    if toolwire_logger.handlers or logging.getLogger().handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    toolwire_logger.addHandler(handler)
    toolwire_logger.setLevel(os.environ.get("TOOLWIRE_LOG_LEVEL", "WARNING").upper())


def _die_with_parent() -> None:
    """Ask Linux to SIGTERM us when the parent exits (the poll below covers other systems)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    except Exception:  # pragma: no cover - best effort
        logger.debug("prctl(PR_SET_PDEATHSIG) unavailable")


async def serve_stdio(server: Server, *, max_message_bytes: int | None = None) -> None:
    """Serve `server` on the protected stdio until EOF, a signal, or the parent's exit.

    Args:
        server: The server to publish.
        max_message_bytes: The longest line accepted; longer ones get a JSON-RPC error and are
            skipped without being buffered whole. Defaults to `server.max_message_bytes`.
    """
    import asyncio

    import anyio

    from ..protocol.session import ServerSession

    limit = max_message_bytes or server.max_message_bytes
    read_fd, write_fd = protect_stdout()
    loop = asyncio.get_running_loop()
    parent = os.getppid()

    async def send(frame: bytes) -> None:
        data = memoryview(frame + b"\n")
        while data:
            try:
                written = os.write(write_fd, data)
            except BlockingIOError:
                await anyio.sleep(0.001)
                continue
            data = data[written:]

    reader = asyncio.StreamReader(limit=_CHUNK * 2)
    try:
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", 0)
        )
        read_chunk: Callable[[int], Awaitable[bytes]] = reader.read
    except (ValueError, OSError):  # a regular file or a tty: read it in a thread
        read_file = os.fdopen(read_fd, "rb", 0)

        async def read_in_thread(n: int) -> bytes:
            return await anyio.to_thread.run_sync(read_file.read, n, abandon_on_cancel=True)

        read_chunk = read_in_thread

    async with ServerSession(server, send) as session:

        async def watch_parent() -> None:
            while os.getppid() == parent:
                await anyio.sleep(_PARENT_POLL_SECONDS)
            logger.info("parent process exited; shutting down")
            session.close()

        async def watch_signals() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    session.close()
                    return

        assert session._task_group is not None
        session._task_group.start_soon(watch_parent)
        session._task_group.start_soon(watch_signals)
        buffer = b""
        skipping = 0  # bytes of an oversized line discarded so far
        while True:
            chunk = await read_chunk(_CHUNK)
            if not chunk:
                break
            while chunk:
                newline = chunk.find(b"\n")
                if skipping:
                    if newline < 0:
                        skipping += len(chunk)
                        chunk = b""
                        continue
                    await session.reject_oversized(skipping + newline)
                    skipping = 0
                    chunk = chunk[newline + 1 :]
                    continue
                if newline < 0:
                    buffer += chunk
                    chunk = b""
                    if len(buffer) > limit:
                        skipping, buffer = len(buffer), b""
                    continue
                line = buffer + chunk[:newline]
                buffer, chunk = b"", chunk[newline + 1 :]
                if len(line) > limit:
                    await session.reject_oversized(len(line))
                    continue
                line = line.strip()
                if line:
                    await session.receive(line)
        # EOF: let calls in flight finish and answer, then stop the watchers.
        await _drain(session)
        session.close()


async def _drain(session: object) -> None:
    import anyio

    in_flight = getattr(session, "_in_flight", {})
    with anyio.move_on_after(30):
        while in_flight:
            await anyio.sleep(0.01)


def run_stdio(server: Server, *, max_message_bytes: int | None = None) -> None:
    """Blocking entry point used by `Server.run()` and `toolwire run`."""
    import anyio

    protect_stdout()
    _configure_logging()
    _die_with_parent()
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(lambda: serve_stdio(server, max_message_bytes=max_message_bytes))
    sys.stdout.flush()
    # Abandoned sync tools may still be running in worker threads: do not wait for them.
    os._exit(0)
