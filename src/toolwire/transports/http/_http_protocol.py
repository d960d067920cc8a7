"""The HTTP protocol toolwire serves with: uvicorn's own, plus a deadline for each request
head and one send per response.

The deadline (the slowloris defence). uvicorn bounds an idle kept-alive connection
(`timeout_keep_alive`) and the size of a head (h11's incomplete-event limit), but not the
time a head takes: a client that opens a connection and sends nothing, or trickles a header
line now and then, holds its connection and a file descriptor for ever, and a few thousand
such clients exhaust the process. `ServingProtocol` closes a connection whose request head
is not complete within `header_timeout` seconds of the connection opening, or of the first
bytes of a later request on it. Bodies and responses are not timed: a long SSE stream or a
slow tool call stays open, as the deadline ends when the head is complete.

One send per response: the connection's transport is wrapped so that the writes of one pass
of the event loop leave together (`_gathered_writes.py`).

It extends the protocol uvicorn would pick anyway (httptools when installed, else h11) and
reads only what both keep: the request cycle under way and whether its response is done.
uvicorn imports it by name (`configure_protocol`), which also works in worker processes,
where the configuration arrives pickled.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from ._gathered_writes import GatheredWrites

__all__ = ["ServingProtocol", "configure_protocol"]

_SECONDS_ATTRIBUTE = "toolwire_header_timeout"


def configure_protocol(config: Any, header_timeout: float | None) -> None:
    """Have the uvicorn `config` serve with `ServingProtocol`.

    Args:
        config: The `uvicorn.Config`.
        header_timeout: Seconds a request head may take (None: no deadline).

    Raises:
        ValueError: `header_timeout` is not None nor a number above 0.
    """
    seconds = header_timeout
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0
    ):
        raise ValueError(f"header_timeout must be a number of seconds > 0 or None, not {seconds!r}")
    config.http = f"{__name__}:ServingProtocol"
    setattr(config, _SECONDS_ATTRIBUTE, None if seconds is None else float(seconds))


class ServingProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP protocol, closing connections whose request head is overdue and sending
    each response in one piece."""

    def __init__(self, config: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self._head_seconds: float | None = getattr(config, _SECONDS_ATTRIBUTE, None)
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(GatheredWrites(transport, self.loop))
        self._start_head_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # Not restarted by each chunk: a trickle of header lines must not keep it open.
        if self._awaiting_head():
            self._start_head_timer()
        else:
            self._stop_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def _awaiting_head(self) -> bool:
        """Whether the connection is between requests, or inside an unfinished head."""
        if self.transport is None or self.transport.get_protocol() is not self:
            return False  # closed, or handed to another protocol (a WebSocket upgrade)
        cycle = self.cycle
        return cycle is None or bool(cycle.response_complete)

    def _start_head_timer(self) -> None:
        if self._head_timer is None and self._head_seconds is not None:
            self._head_timer = self.loop.call_later(self._head_seconds, self._head_overdue)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_overdue(self) -> None:
        self._head_timer = None
        if self._awaiting_head() and not self.transport.is_closing():
            self.transport.close()
