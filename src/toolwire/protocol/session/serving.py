"""What a transport is handed: something to serve, which opens sessions while it is served. A
transport knows nothing of `Server`: it enters `serving()` (the lifespan held open inside), opens
one session per connection with the opener it yields, and enforces the size limit."""

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
    """Opens one `ServerSession` writing with `send` (its arguments say what each option
    means)."""

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

    def serving(self) -> AbstractAsyncContextManager[SessionOpener]:
        """Hold the application open; yield what opens its sessions."""


def opener_then(opener: SessionOpener, then: Callable[[ServerSession], None]) -> SessionOpener:
    """`opener`, with `then` done to each session it opens (before the transport uses it)."""

    def open_then(send: Any, **options: Any) -> ServerSession:
        session = opener(send, **options)
        then(session)
        return session

    return open_then
