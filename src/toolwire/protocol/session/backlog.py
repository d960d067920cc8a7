"""How much a session holds for a client that may not keep up, and when to stop reading. A `Backlog`
counts the bytes of frames not yet written, the bytes of requests whose calls still run and the
number of those calls. While any is past its limit the backlog is `full` and a transport reads no
more frames until it clears; nothing read is dropped."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio

__all__ = ["Backlog"]

UNSENT_LIMIT = 4 * 1024 * 1024
CALL_BYTES_LIMIT = 4 * 1024 * 1024
CALLS_LIMIT = 1024


@dataclass(eq=False, slots=True)
class Backlog:
    """What one session holds; see the module docstring."""

    unsent: int = 0
    call_bytes: int = 0
    calls: int = 0
    frame_size: int = 0  # of the frame being handled, for the call it starts
    _clear: anyio.Event | None = field(default=None, init=False)  # set as the backlog clears

    @property
    def full(self) -> bool:
        """Whether the transport should read no more frames for now."""
        return (
            self.unsent >= UNSENT_LIMIT
            or self.call_bytes >= CALL_BYTES_LIMIT
            or self.calls >= CALLS_LIMIT
        )

    async def until_clear(self) -> None:
        """Return as soon as the backlog is not full (at once if it is not)."""
        while self.full:
            if self._clear is None:
                self._clear = anyio.Event()
            await self._clear.wait()

    def sending(self, size: int) -> None:
        """A frame of `size` bytes is waiting to be written."""
        self.unsent += size

    def sent(self, size: int) -> None:
        """That frame is written (or given up)."""
        self.unsent -= size
        self._wake()

    def call_started(self) -> int:
        """A call began for the frame being handled; returns the size to end it with."""
        size = self.frame_size
        self.calls += 1
        self.call_bytes += size
        return size

    def call_ended(self, size: int) -> None:
        """A call that began with `call_started` is over."""
        self.calls -= 1
        self.call_bytes -= size
        self._wake()

    def _wake(self) -> None:
        if self._clear is not None and not self.full:
            self._clear.set()
            self._clear = None
