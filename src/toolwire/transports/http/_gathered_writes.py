"""One send per response: the writes a connection makes in one pass of the event loop leave
the process together.

uvicorn writes a response's status line and headers when the app starts the response, and
the body when the app sends it: two `send` calls, two TCP segments, and on loopback (nginx
in front) two wake-ups of the reader, each of which may preempt the server on a busy
machine. An answer to `tools/call` is small and its head and body are sent in the same pass
of the loop, so holding the writes until the end of that pass costs no wait worth the name
and halves the segments. Measured behind nginx on 2 cores (tests/benchmarks/bench_scale.py):
one `sendto` per stateless JSON call instead of two.

What is held is bounded: past `HOLD_BYTES` the held bytes go out at once, so a large body
reaches the real transport, whose buffer limits pause the app (uvicorn's flow control), as
before. Closing, or ending the write side, sends what is held first; an abort drops it, as
it drops the transport's own buffer.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["HOLD_BYTES", "GatheredWrites"]

HOLD_BYTES = 64 * 1024
"""Bytes held for the end of the pass at most; a larger amount is written at once."""


class GatheredWrites:
    """Stands for a connection's transport, gathering its writes (see the module docstring).

    Every other attribute is the transport's own.

    Args:
        transport: The connection's real transport.
        loop: The loop that runs the connection.
    """

    __slots__ = ("_held", "_held_bytes", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []
        self._held_bytes = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._held:
            self._loop.call_soon(self._send_held)
        self._held.append(bytes(data))
        self._held_bytes += len(data)
        if self._held_bytes >= HOLD_BYTES:
            self._send_held()

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def _send_held(self) -> None:
        if not self._held:
            return  # already sent (the hold filled up, or the connection closed)
        held = self._held[0] if len(self._held) == 1 else b"".join(self._held)
        self._held = []
        self._held_bytes = 0
        if not self._transport.is_closing():
            self._transport.write(held)

    def close(self) -> None:
        self._send_held()
        self._transport.close()

    def write_eof(self) -> None:
        self._send_held()
        self._transport.write_eof()

    def abort(self) -> None:
        self._held = []
        self._held_bytes = 0
        self._transport.abort()

    def get_write_buffer_size(self) -> int:
        return self._held_bytes + self._transport.get_write_buffer_size()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)
