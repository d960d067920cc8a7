"""What the streamable HTTP app holds while it is served: its live sessions, the pool lent to
requests without one, and its place on the change bus, which also carries a client's answer to
the process whose call waits for it (up to `MAX_FORWARDED_BYTES`; see docs/decisions.md,
`_runtime.py`). Nothing is module-level: apps in one process serve and stop apart."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from ...protocol.wire.jsonrpc import INTERNAL_ERROR, Response, classify
from ._served_app import Serving
from .changes import (
    CLIENT_RESPONSE,
    FOLLOWED_RESOURCES_UPDATED,
    PROMPTS_CHANGED,
    RESOURCE_UPDATED,
    RESOURCES_CHANGED,
    SESSION_ENDED,
    SESSION_UPDATED,
    TOOLS_CHANGED,
    BusMember,
    ChangeBus,
)
from .streamable._hosting import SessionPool
from .streamable.events import EventStore
from .streamable.records import SessionStore
from .streamable.session_manager import SessionManager

if TYPE_CHECKING:
    from ...protocol.session.serving import Servable, SessionOpener
    from ...protocol.session.session import ServerSession
    from ...protocol.wire.jsonrpc import RequestId
    from .streamable.sessions import HttpSession

__all__ = ["MAX_FORWARDED_BYTES", "Runtime"]

logger = logging.getLogger("toolwire.http")


class Runtime(Serving):
    """The serving state of one app (the options are `Server.http_app`'s; `event_store` None:
    no resumption; `back_channel`: sessions may send requests to the client)."""

    def __init__(
        self,
        servable: Servable,
        *,
        idle_timeout: float | None,
        max_sessions: int,
        session_store: SessionStore | None,
        event_store: EventStore | None,
        back_channel: bool,
        max_event_bytes: int | None = None,
        change_bus: ChangeBus | None = None,
    ) -> None:
        super().__init__(servable, max_event_bytes, "MCP")
        self.change_bus = change_bus
        self._member: BusMember | None = None
        self.pool: SessionPool | None = None
        self.event_store = event_store
        self.sessions: SessionManager | None = None
        self.back_channel = back_channel
        self._idle_timeout = idle_timeout
        self._max_sessions = max_sessions
        self._session_store = session_store

    @asynccontextmanager
    async def hosting(self, opener: SessionOpener) -> AsyncIterator[None]:
        """Host sessions for the duration: the session manager, the pool, the change bus."""
        sessions = SessionManager(
            opener,
            idle_timeout=self._idle_timeout,
            max_sessions=self._max_sessions,
            store=self._session_store,
            announce=self._publish,
            back_channel=self.back_channel,
        )
        sessions.start()
        self.sessions = sessions
        relays: list[_Relay] = []
        if self.change_bus is not None:
            self._member = await self.change_bus.join(self._hear)
            # A listener on each registry publishes its changes.
            for registry_name, listeners_name, topic in _ANNOUNCED:
                registry = getattr(self.servable, registry_name, None)
                listeners = getattr(registry, listeners_name, None)
                if isinstance(listeners, list):
                    relays.append(_Relay(self._publish, topic, listeners))
                    listeners.append(relays[-1])
        pool = self.pool = SessionPool(opener)
        try:
            yield
        finally:
            for relay in relays:
                with contextlib.suppress(ValueError):
                    relay.listeners.remove(relay)
            if self._member is not None:
                await self._member.leave()
                self._member = None
            await sessions.close()
            await pool.close()
            self.sessions = None
            await self._close_connections()

    async def _close_connections(self) -> None:
        """Close the shared stores' connections (a Redis client is bound to this event loop)."""
        # The event store first: closing may write end markers, on a link the others share.
        parts = (self.event_store, self._session_store, self.change_bus)
        for part in {id(part): part for part in parts}.values():  # one object may be several
            close = getattr(part, "close", None)
            if close is None:
                continue
            try:
                await close()
            except Exception as error:  # the connection is gone already: nothing to free
                logger.debug("closing %s failed: %r", type(part).__name__, error)

    def _publish(self, topic: str, data: str) -> None:
        # From any thread (a sync tool changing a registry runs on a worker): the member copes.
        if self._member is not None:
            self._member.publish(topic, data)

    def forwarded(self, found: HttpSession, request_id: RequestId, message: Any) -> bool:
        """Pass on to the other processes an answer no call here waits for; whether it was."""
        sessions = self.sessions
        if (
            self._member is None
            or sessions is None
            or not sessions.shared
            or found.server_session.outbound.awaits(request_id)
        ):
            return False
        self._member.publish(CLIENT_RESPONSE, forward_notice(found.id, message, request_id))
        logger.debug("session %s: answer %r passed on to the other processes", found.id, request_id)
        return True

    def _hear(self, topic: str, data: str) -> None:
        """A notice from another process (a change goes to the registry's listeners other
        than relays), or the member's word that it may have missed resource updates."""
        for registry_name, listeners_name, announced in _ANNOUNCED:
            if topic != announced:
                continue
            registry = getattr(self.servable, registry_name, None)
            for listener in list(getattr(registry, listeners_name, None) or ()):
                # Never back onto a bus: not this app's, nor another app's of the same server
                # (two apps re-publishing each other's notices would echo between processes).
                if not isinstance(listener, _Relay):
                    if topic == RESOURCE_UPDATED:
                        listener(data)
                    else:
                        listener()
            return
        if self.sessions is None:
            return
        if topic == FOLLOWED_RESOURCES_UPDATED:
            # A copy may also have missed a change to its subscriptions made on another
            # process (SESSION_UPDATED): it reads its record again before it tells.
            for session_id in list(self.sessions.live):
                self.sessions.reload_soon(session_id, then=_tell_followed)
            for session in self.pool.listening() if self.pool is not None else []:
                _tell_followed(session)
        elif topic == SESSION_ENDED:
            self.sessions.forget(data)
        elif topic == SESSION_UPDATED:
            self.sessions.reload_soon(data)
        elif topic == CLIENT_RESPONSE:
            take_forwarded(self.sessions, data)

    async def end_idle_streams(self) -> None:
        """End the GET and listen streams (the server is stopping; calls may still finish)."""
        if self.sessions is not None:
            for found in list(self.sessions.live.values()):
                stream = found.get_stream
                if stream is not None and not stream.finished:
                    stream.finish()
        if self.pool is not None:
            await self.pool.end_listen_streams()

    async def ending(self) -> None:
        """End every session and stream, listen streams with their final result."""
        if self.sessions is not None:
            await self.sessions.close()
        if self.pool is not None:
            await self.pool.end_listen_streams()  # their final results, before they close
            await self.pool.close()


def _tell_followed(session: ServerSession) -> None:
    """Have `session` tell its client that every resource it follows may have changed."""
    uris = sorted(session.followed_resources())
    if not uris:
        return

    async def tell() -> None:
        for uri in uris:
            await session.resource_updated(uri)

    try:
        session.start_soon(tell)
    except RuntimeError:  # the session is closing: nobody left to tell
        logger.debug("a session closed before hearing that its resources may have changed")


# What the bus relays: (registry, its listener list, topic); only RESOURCE_UPDATED carries data.
_ANNOUNCED = (
    ("tool_registry", "listeners", TOOLS_CHANGED),
    ("resource_registry", "listeners", RESOURCES_CHANGED),
    ("prompt_registry", "listeners", PROMPTS_CHANGED),
    ("resource_registry", "update_listeners", RESOURCE_UPDATED),
)


class _Relay:
    """A registry listener publishing the change on the bus (so never fed what the bus brings)."""

    __slots__ = ("listeners", "publish", "topic")

    def __init__(
        self, publish: Callable[[str, str], None], topic: str, listeners: list[Any]
    ) -> None:
        self.publish = publish
        self.topic = topic
        self.listeners = listeners  # the list it is appended to while the app serves

    def __call__(self, data: str = "") -> None:
        self.publish(self.topic, data)


MAX_FORWARDED_BYTES = 1024 * 1024
"""The largest client answer (as JSON) passed between processes; a larger one is refused."""


def forward_notice(session_id: str, message: dict[str, Any], request_id: Any) -> str:
    """The `CLIENT_RESPONSE` data for a client answer (an error in its place when too large)."""
    data = json.dumps([session_id, message], separators=(",", ":"))
    if len(data) <= MAX_FORWARDED_BYTES:
        return data
    logger.warning(
        "session %s: the client's answer to %r is %d bytes, over the %d the change bus "
        "carries between processes; the waiting call gets an error instead",
        session_id,
        request_id,
        len(data),
        MAX_FORWARDED_BYTES,
    )
    refusal = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": INTERNAL_ERROR,
            "message": (
                f"The answer ({len(data)} bytes) reached another server process and is too "
                f"large to pass on (at most {MAX_FORWARDED_BYTES} bytes)"
            ),
        },
    }
    return json.dumps([session_id, refusal], separators=(",", ":"))


def take_forwarded(sessions: SessionManager, data: str) -> None:
    """Resolve the request a forwarded answer is for, if this process waits for it."""
    try:
        session_id, message = json.loads(data)
        item = classify(message) if isinstance(session_id, str) else None
    except (TypeError, ValueError):
        item = None
    if not isinstance(item, Response):
        logger.warning("change bus: ignored a client answer that is not one: %.200r", data)
        return
    held = sessions.live.get(session_id)
    if held is None or not held.server_session.outbound.awaits(item.id):
        logger.debug("session %s: answer %r is not awaited here; ignored", session_id, item.id)
        return
    held.server_session.outbound.resolve(item.id, item.result, item.error)
    logger.debug("session %s: took answer %r passed on by another process", session_id, item.id)
