"""`RedisSessionStore`: session records (`toolwire.transports.http.streamable.records`) in
Redis, one JSON string key per session, `<prefix>:session:<id>`, whose expiry is the idle
timeout: created with `SET NX` (an id is never taken twice), updated with `SET XX` (an ended
session stays ended), ended with `DEL`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..transports.http.streamable.records import SessionRecord, StoreUnavailable
from ._link import RedisStore

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["RedisSessionStore"]

STORE = "Redis session store"


class RedisSessionStore(RedisStore):
    """Handshake-era session records in Redis (`toolwire[redis]`).

    Pass it as `Server.http_app(session_store=...)` in every process serving one MCP URL (or
    use `RedisBackplane`): any of them continues a session, DELETE ends it for all, and it
    expires in Redis after `session_idle_timeout` (never, with None).

    Args:
        url: The Redis URL (`redis://127.0.0.1:6379/0`).
        prefix: Starts every key this store writes.
        timeout: Seconds an operation may take before the request gets a 503.
        link: A `RedisLink` to share with other stores (then `url` and `timeout` are its).
    """

    def _key(self, session_id: str) -> str:
        return f"{self.prefix}:session:{session_id}"

    async def save(self, record: SessionRecord, ttl: float | None, *, create: bool) -> bool:
        """Write `record` (see `SessionStore.save`).

        Raises:
            StoreUnavailable: Redis failed or did not answer in time.
        """
        key = self._key(record.session_id)
        data = record.to_json()
        expiry = None if ttl is None else max(1, int(ttl * 1000))

        async def write(client: Redis) -> Any:
            if create:
                return await client.set(key, data, px=expiry, nx=True)
            return await client.set(key, data, px=expiry, xx=True, keepttl=expiry is None)

        written = await self.link.call(STORE, f"save session {record.session_id}", write)
        return bool(written)

    async def load(self, session_id: str) -> SessionRecord | None:
        """The record of `session_id`, or None (unknown, ended, expired).

        Raises:
            StoreUnavailable: Redis failed, did not answer in time, or holds something that
                is not a record under that key.
        """
        key = self._key(session_id)
        action = f"load session {session_id}"
        data = await self.link.call(STORE, action, lambda client: client.get(key))
        if data is None:
            return None
        try:
            return SessionRecord.from_json(data)
        except ValueError as error:
            raise StoreUnavailable(f"{STORE} at {self.link.where}", action, str(error)) from None

    async def touch(self, session_ids: list[str], ttl: float) -> list[str]:
        """Push back these records' expiry; return the ids that have no record any more.

        Raises:
            StoreUnavailable: Redis failed or did not answer in time.
        """
        if not session_ids:
            return []
        expiry = max(1, int(ttl * 1000))

        async def refresh(client: Redis) -> Any:
            async with client.pipeline(transaction=False) as pipe:
                for session_id in session_ids:
                    pipe.pexpire(self._key(session_id), expiry)
                return await pipe.execute()

        what = session_ids[0] if len(session_ids) == 1 else f"{len(session_ids)} sessions"
        pushed = await self.link.call(STORE, f"refresh the expiry of {what}", refresh)
        return [sid for sid, kept in zip(session_ids, pushed, strict=True) if not kept]

    async def end(self, session_id: str) -> None:
        """Delete the record: the session ends for every process.

        Raises:
            StoreUnavailable: Redis failed or did not answer in time.
        """
        key = self._key(session_id)
        await self.link.call(STORE, f"end session {session_id}", lambda client: client.delete(key))
