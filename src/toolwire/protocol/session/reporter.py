"""A running call's progress and log messages, sent as MCP notifications.

- Progress goes out only when the request carried `_meta.progressToken`. Progress must
  increase (the spec says so); a value that does not is dropped with a warning on the
  `toolwire.protocol` logger. `total`/`message` are sent when given.
- Logs (`notifications/message`): in the handshake era every level is sent until the client
  calls `logging/setLevel` (the SDK does the same), then that level and above. In the modern
  era a request opts in with `_meta["io.modelcontextprotocol/logLevel"]`; without it nothing
  is sent (the spec says the server MUST NOT).
- Nothing is sent after the call has been answered or cancelled: a tool that keeps running
  past its deadline cannot talk about a request the client considers finished.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ...errors import NoBackChannelError
from ..wire.content import to_jsonable
from ..wire.eras import LOG_LEVELS
from ..wire.jsonrpc import FrameKind, RequestId, RoutedSend, notification

if TYPE_CHECKING:
    from ...context import ElicitResult, SampleResult
    from .asking import Asker

__all__ = ["STREAM_CLOSER", "Reporter"]


logger = logging.getLogger("toolwire.protocol")

STREAM_CLOSER: ContextVar[Callable[[], Awaitable[None]] | None] = ContextVar(
    "toolwire_stream_closer", default=None
)
"""Set by a transport around the request that starts a call when that request has a stream of
its own which may end early (streamable HTTP's SSE responses); a call task inherits it."""


class Reporter:
    """The `CallReporter` of one `tools/call`.

    Args:
        send: Writes one frame, tagged with the request it belongs to (the session's `send`).
        token: The request's progress token, or None.
        log_level: The lowest level sent, or None to send no logs.
        request_id: The call's request: its notifications travel with it (an HTTP transport
            writes them on that request's stream).
        asker: Where the tool's questions to the client go (see asking.py); None when the
            call has no client to ask.
        session_id: The MCP session the request comes in (`ServerSession.session_id`).

    Attributes:
        asker: Where the tool's questions go, once known.
        make_asker: Builds the asker at the first question, when none was given: most calls
            never ask, and one that brings nothing to check up front needs none until then.
    """

    __slots__ = (
        "_closer",
        "_last",
        "_log_level",
        "_request_id",
        "_send",
        "_token",
        "asker",
        "closed",
        "make_asker",
        "session_id",
    )

    def __init__(
        self,
        send: RoutedSend,
        token: Any,
        log_level: str | None,
        request_id: RequestId | None = None,
        asker: Asker | None = None,
        session_id: str | None = None,
    ) -> None:
        self.asker = asker
        self.make_asker: Callable[[], Asker] | None = None
        self.session_id = session_id
        self._send = send
        self._request_id = request_id
        self._token = token
        self._log_level = LOG_LEVELS.index(log_level) if log_level in LOG_LEVELS else None
        self._last = -math.inf
        self.closed = False
        self._closer = STREAM_CLOSER.get()

    async def close_stream(self) -> None:
        """End the stream carrying this call's messages, if its transport has one to end."""
        if self._closer is not None and not self.closed:
            await self._closer()

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Send `notifications/progress` if the caller asked for progress."""
        if self._token is None or self.closed:
            return
        if (
            isinstance(progress, bool)
            or not isinstance(progress, int | float)
            or not math.isfinite(progress)
        ):
            logger.warning("progress must be a finite number, not %r; dropped", progress)
            return
        if progress <= self._last:
            logger.warning(
                "progress must increase (got %s after %s); dropped", progress, self._last
            )
            return
        self._last = progress
        params: dict[str, Any] = {"progressToken": self._token, "progress": progress}
        if isinstance(total, int | float) and not isinstance(total, bool):
            params["total"] = total
        if message is not None:
            params["message"] = str(message)
        await self._send(
            notification("notifications/progress", params), FrameKind.NOTICE, self._request_id
        )

    async def log(self, level: str, data: Any, logger_name: str | None) -> None:
        """Send `notifications/message` if `level` passes the client's threshold."""
        if self._log_level is None or self.closed:
            return
        if level not in LOG_LEVELS:
            logger.warning("unknown log level %r; use one of %s", level, ", ".join(LOG_LEVELS))
            return
        if LOG_LEVELS.index(level) < self._log_level:
            return
        params: dict[str, Any] = {"level": level}
        if logger_name:
            params["logger"] = str(logger_name)
        params["data"] = to_jsonable(data)
        await self._send(
            notification("notifications/message", params), FrameKind.NOTICE, self._request_id
        )

    def _questions(self, method: str) -> Asker:
        if self.asker is None and self.make_asker is not None:
            self.asker = self.make_asker()
        if self.asker is None:
            raise NoBackChannelError(method, f"Cannot send {method!r}: no client to ask.")
        return self.asker

    async def elicit(
        self, message: str, schema: Any, timeout: float | None, key: str | None
    ) -> ElicitResult:
        """Ask the user through the client (see `ToolContext.elicit`)."""
        return await self._questions("elicitation/create").elicit(message, schema, timeout, key)

    async def sample(
        self, messages: Any, options: dict[str, Any], timeout: float | None, key: str | None
    ) -> SampleResult:
        """Ask the client's model (see `ToolContext.sample`)."""
        asker = self._questions("sampling/createMessage")
        return await asker.sample(messages, options, timeout, key)

    async def list_roots(self, timeout: float | None, key: str | None) -> list[dict[str, Any]]:
        """Ask the client for its roots (see `ToolContext.list_roots`)."""
        return await self._questions("roots/list").list_roots(timeout, key)
