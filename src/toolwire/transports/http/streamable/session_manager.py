"""Creating, finding, keeping and ending the handshake-era sessions of one app: live copies
here, records in a `SessionStore` from which any process rebuilds a session it does not hold, for
its own caller only; idle sessions dropped, `max_sessions` bounding the copies. See
docs/decisions.md, `session_manager.py`."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ....protocol.auth.identity import same_caller
from ..changes import SESSION_ENDED, SESSION_UPDATED
from ._hosting import CLOSE_GRACE_SECONDS
from .records import MemorySessionStore, SessionRecord, SessionStore, StoreUnavailable, caller_key
from .sessions import HttpSession, SessionLimitError, session_id_prefix

if TYPE_CHECKING:
    from ....protocol.session.serving import SessionOpener
    from ....protocol.session.session import ServerSession

__all__ = ["SessionManager"]

Tell = Callable[["ServerSession"], None]

logger = logging.getLogger("toolwire.http")


class SessionManager:
    """The sessions of one app while it is served: `opener` opens each new or rebuilt one (with
    a back channel to its client if `back_channel`), `announce` publishes a notice
    (`SESSION_ENDED`, `SESSION_UPDATED`) and a session id."""

    def __init__(
        self,
        opener: SessionOpener,
        *,
        idle_timeout: float | None,
        max_sessions: int,
        store: SessionStore | None = None,
        announce: Callable[[str, str], None] | None = None,
        back_channel: bool = True,
    ) -> None:
        self.opener = opener
        self.back_channel = back_channel
        self.idle_timeout = idle_timeout
        self.max_sessions = max_sessions
        self.store: SessionStore = store if store is not None else MemorySessionStore()
        self.shared = not isinstance(self.store, MemorySessionStore)
        self.interval = min(max(idle_timeout / 4, 0.05), 60.0) if idle_timeout else 60.0
        self.record_ttl = idle_timeout + self.interval if idle_timeout and self.shared else None
        if self.shared and idle_timeout is None:
            logger.warning(
                "session_idle_timeout=None with a shared session store: the records of "
                "sessions their clients abandon are never deleted from %s",
                type(self.store).__name__,
            )
        self.live: dict[str, HttpSession] = {}
        self._opening = 0  # sessions being opened or rebuilt, each holding a slot
        self._id_prefix = session_id_prefix()
        self._announce = announce
        self._loading: dict[str, asyncio.Future[HttpSession | None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._reaper: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self.live)

    def start(self) -> None:
        """Start reaping idle sessions (in the running loop)."""
        if self.idle_timeout is not None and self._reaper is None:
            self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def open(self, identity: Any = None) -> HttpSession:
        """A new session, ready for its `initialize`; it has no record until `commit`.

        Raises:
            SessionLimitError: `max_sessions` live sessions, none of them idle.
        """
        session = HttpSession(self._id_prefix + secrets.token_hex(16), identity)
        await self._host(session)
        return session

    async def commit(self, session: HttpSession) -> None:
        """Write the record of a session that `initialize` just succeeded on.

        Raises:
            StoreUnavailable: The store failed (the caller ends the session).
        """
        record = SessionRecord.of(session.id, session.server_session, session.identity)
        await self.store.save(record, self.record_ttl, create=True)
        session.saved(record)
        session.touched = time.monotonic()

    async def find(self, session_id: str, identity: Any = None) -> HttpSession | None:
        """The session with this id for this caller, rebuilt from its record if need be; None
        when unknown, ended, expired, or another caller's.

        Raises:
            StoreUnavailable: The record was needed and the store failed.
            SessionLimitError: Rebuilding it would exceed `max_sessions`.
        """
        session = self.live.get(session_id)
        if session is None:
            session = await self._load(session_id, identity)
            if session is None:
                return None
        elif not same_caller(session.identity, identity):
            return None
        now = time.monotonic()
        if session.ended or self._expired(session, now):
            await self._expire(session)
            return None
        session.last_seen = now
        if self.record_ttl is not None and now - session.touched > self.interval:
            session.touched = now
            self._in_background(self._touch([session.id]))
        if identity is not None and identity is not session.identity:
            # The same caller with a refreshed (or stepped-up) token: its scopes now count.
            session.identity = session.server_session.identity = identity
        return session

    async def _load(self, session_id: str, identity: Any) -> HttpSession | None:
        # Concurrent requests for one session not held here rebuild it once. A waiter whose
        # rebuilder was cancelled (its client left) takes the rebuild over.
        while (pending := self._loading.get(session_id)) is not None:
            try:
                session = await asyncio.shield(pending)
                break
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not pending.cancelled() or (task is not None and task.cancelling()):
                    raise  # this task is cancelled, not only the rebuilder
        else:
            pending = asyncio.get_running_loop().create_future()
            self._loading[session_id] = pending
            try:
                session = await self._rebuild(session_id, identity)
            except BaseException as error:
                if isinstance(error, Exception):
                    pending.set_exception(error)
                    pending.exception()  # retrieved: the waiters re-raise it themselves
                else:
                    pending.cancel()
                raise
            else:
                pending.set_result(session)
            finally:
                del self._loading[session_id]
        if session is None or not same_caller(session.identity, identity):
            return None
        return session

    async def _rebuild(self, session_id: str, identity: Any) -> HttpSession | None:
        record = await self.store.load(session_id)
        if record is None or record.caller != caller_key(identity):
            return None
        session = HttpSession(session_id, identity)
        await self._host(session)
        record.restore(session.server_session)
        session.saved(record)
        logger.debug("session %s rebuilt from its record", session_id)
        return session

    async def _host(self, session: HttpSession) -> None:
        if len(self.live) + self._opening >= self.max_sessions:
            await self.reap()
            if len(self.live) + self._opening >= self.max_sessions:
                raise SessionLimitError
        self._opening += 1
        try:
            session.save_changes = self.sync if self.shared else None
            options = {"back_channel": self.back_channel, "identity": session.identity}
            await session.open(self.opener, options)
            if self.shared:
                # Copies on several processes number their requests apart (see above).
                session.server_session.outbound.id_prefix = f"tw-{session.copy}-"
            self.live[session.id] = session
        finally:
            self._opening -= 1
            if self.live.get(session.id) is not session:
                session.stop()  # it did not come up: its task must not hold it open

    async def sync(self, session: HttpSession) -> None:
        """Write back what a request changed in the session's record, if it still exists."""
        if not session.record_changed:
            return
        if self.shared:
            session.record_reads += 1  # a reload still waiting for its read is older news
            try:
                current = await self.store.load(session.id)
            except StoreUnavailable:
                return  # logged by the store; the next change tries again
            if current is None:
                self._stop(session)
                return
            session.rebase(current)
        record = SessionRecord.of(session.id, session.server_session, session.identity)
        try:
            kept = await self.store.save(record, self.record_ttl, create=False)
        except StoreUnavailable:
            return  # logged by the store; the next change tries again
        session.saved(record)
        session.touched = time.monotonic()
        if not kept:
            self._stop(session)
        else:
            self._tell_others(SESSION_UPDATED, session.id)

    def reload_soon(self, session_id: str, then: Tell | None = None) -> None:
        """Another process changed a session's record: the copy here reloads it, in the
        background; `then` (a catch-up) gets the copy's session after, and leaves a record
        found gone to the next refresh."""
        session = self.live.get(session_id)
        if session is not None:
            self._in_background(self._reload(session, then))

    async def _reload(self, session: HttpSession, then: Tell | None) -> None:
        session_id = session.id
        session.record_reads += 1
        ticket = session.record_reads
        record: SessionRecord | None = None
        try:
            record = await self.store.load(session_id)
            gone = record is None
        except StoreUnavailable:
            gone = False  # logged by the store; the copy keeps what it has
        if self.live.get(session_id) is not session:
            return
        if gone and then is None:
            self.forget(session_id)
            return
        # Unless a later read holds newer news, or this copy's own write is due.
        if record is not None and session.record_reads == ticket and not session.record_changed:
            session.saved(record)
            record.restore(session.server_session)
        if then is not None:
            then(session.server_session)

    def _expired(self, session: HttpSession, now: float) -> bool:
        timeout = self.idle_timeout
        return timeout is not None and now - session.last_seen > timeout and session.idle

    def _stop(self, session: HttpSession) -> None:
        """Stop this process's copy of `session`; its record stays."""
        if self.live.get(session.id) is session:
            del self.live[session.id]
        session.stop()

    async def _expire(self, session: HttpSession) -> None:
        """Stop an ended or expired copy; a record of the memory store (which never expires
        one) goes with it."""
        self._stop(session)
        if not self.shared:
            await self.store.end(session.id)

    def forget(self, session_id: str) -> None:
        """Drop this process's copy of a session ended elsewhere (heard on the change bus)."""
        session = self.live.get(session_id)
        if session is not None:
            self._stop(session)

    async def end_by_id(self, session_id: str, identity: Any = None) -> bool:
        """End this caller's session `session_id` (DELETE) without rebuilding it here; whether
        there was one to end.

        Raises:
            StoreUnavailable: Its record could not be read or deleted; the session goes on.
        """
        session = self.live.get(session_id)
        if session is None:
            record = await self.store.load(session_id)
            if record is None or record.caller != caller_key(identity):
                return False
        elif not same_caller(session.identity, identity):
            return False
        elif session.ended or self._expired(session, time.monotonic()):
            await self._expire(session)
            return False
        await self.store.end(session_id)
        self._tell_others(SESSION_ENDED, session_id)
        if session is not None:
            await self.discard(session)  # and wait, briefly, for it to close
        return True

    def _tell_others(self, topic: str, session_id: str) -> None:
        if self._announce is not None and self.shared:
            self._announce(topic, session_id)

    async def discard(self, session: HttpSession) -> None:
        """Drop a session that never got a record (its `initialize` failed or was left)."""
        self._stop(session)
        if session.hosted.task is not None:
            await asyncio.wait({session.hosted.task}, timeout=CLOSE_GRACE_SECONDS)

    async def reap(self) -> None:
        """Drop the expired copies (and refresh the records of busy ones)."""
        now = time.monotonic()
        due: list[str] = []
        for session in list(self.live.values()):
            if session.ended or self._expired(session, now):
                await self._expire(session)
            elif (
                self.record_ttl is not None
                and not session.idle
                and now - session.touched > self.interval
            ):
                session.touched = now
                due.append(session.id)
        if due:
            self._in_background(self._touch(due))

    async def _touch(self, session_ids: list[str]) -> None:
        assert self.record_ttl is not None
        try:
            gone = await self.store.touch(session_ids, self.record_ttl)
        except StoreUnavailable:
            return  # logged by the store; the next refresh tries again
        for session_id in gone:
            logger.debug("session %s has no record any more; this copy is dropped", session_id)
            self.forget(session_id)

    def _in_background(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _reap_forever(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.reap()

    async def close(self) -> None:
        """Drop every live copy and stop reaping; records stay (but the memory store's)."""
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        tasks = []
        for session in list(self.live.values()):
            await self._expire(session)
            if session.hosted.task is not None:
                tasks.append(session.hosted.task)
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_GRACE_SECONDS)
        if self._background:
            await asyncio.wait(set(self._background), timeout=CLOSE_GRACE_SECONDS)
