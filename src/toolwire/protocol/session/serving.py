"""What a transport is handed: something to serve, which opens sessions while it is served.

A transport knows nothing of `Server`. It enters `serving()` (the application's lifespan is
held open inside), opens one session per connection with the opener that yields, and reads
the message-size limit to enforce while framing.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..auth.identity import Identity
    from ..wire.jsonrpc import RoutedSend
    from .session import Send, ServerSession

__all__ = ["Servable", "SessionOpener", "opener_then"]


class SessionOpener(Protocol):
    """Opens one session (an async context manager) that writes its messages with `send`;
    with `routed=True`, `send` also gets each message's kind and the id of the request it
    belongs to.
    `back_channel=False` says the transport cannot carry requests to the client during a
    call (HTTP JSON-response or stateless mode). `identity` is the authenticated caller the
    session serves (None without authentication). `error_details=True` adds the author's
    exception to the error replies of failed resources and prompts (for an in-process client,
    never for a remote one). `session_id` names the MCP session the transport serves (see
    `ServerSession`); None for a session that serves requests of no MCP session of their own."""

    def __call__(
        self,
        send: Send | RoutedSend,
        *,
        routed: bool = False,
        back_channel: bool = True,
        identity: Identity | None = None,
        error_details: bool = False,
        session_id: str | None = None,
    ) -> ServerSession: ...


class Servable(Protocol):
    """An application a transport can serve."""

    @property
    def max_message_bytes(self) -> int:
        """The largest incoming message to accept."""
        ...

    def serving(self) -> AbstractAsyncContextManager[SessionOpener]:
        """Hold the application open; yield what opens its sessions."""
        ...


def opener_then(opener: SessionOpener, then: Callable[[ServerSession], None]) -> SessionOpener:
    """`opener`, with `then` done to each session it opens (before the transport uses it)."""

    def open_then(send: Any, **options: Any) -> ServerSession:
        session = opener(send, **options)
        then(session)
        return session

    return open_then
