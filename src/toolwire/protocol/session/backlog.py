"""How much a session holds for a client that may not keep up, and when to stop reading.

A `Backlog` counts what a session holds: bytes of replies and notifications not yet written
(`UNSENT_LIMIT`), bytes of requests whose calls still run (`CALL_BYTES_LIMIT`) and the number of
those calls (`CALLS_LIMIT`). While any is past its limit the backlog is `full` and a transport
reads no more frames until it clears. Nothing read is dropped, and every call is answered once
the client reads again; while full, a `notifications/cancelled` is not read either.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Backlog"]

UNSENT_LIMIT = 4 * 1024 * 1024
"""Bytes of frames waiting to be written (or being written) past which reading pauses."""
CALL_BYTES_LIMIT = 4 * 1024 * 1024
"""Bytes of requests whose calls still run past which reading pauses."""
CALLS_LIMIT = 1024
"""Calls running at once past which reading pauses."""


class Backlog:
    """What one session holds; see the module docstring."""

    __slots__ = ("_waiters", "call_bytes", "calls", "frame_size", "unsent")

    def __init__(self) -> None:
        self.unsent = 0
        self.call_bytes = 0
        self.calls = 0
        self.frame_size = 0  # the size of the frame being handled, for the call it starts
        self._waiters: list[Callable[[], None]] = []

    @property
    def full(self) -> bool:
        """Whether the transport should read no more frames for now."""
        return (
            self.unsent >= UNSENT_LIMIT
            or self.call_bytes >= CALL_BYTES_LIMIT
            or self.calls >= CALLS_LIMIT
        )

    def when_clear(self, callback: Callable[[], None]) -> None:
        """Call `callback` (once) as soon as the backlog is no longer full."""
        if self.full:
            self._waiters.append(callback)
        else:
            callback()

    def sending(self, size: int) -> None:
        """A frame of `size` bytes is waiting to be written."""
        self.unsent += size

    def sent(self, size: int) -> None:
        """That frame is written (or given up)."""
        self.unsent -= size
        if self._waiters:
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
        if self._waiters:
            self._wake()

    def _wake(self) -> None:
        if self.full:
            return
        waiters, self._waiters = self._waiters, []
        for callback in waiters:
            callback()
