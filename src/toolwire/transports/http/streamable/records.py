"""Session records: a handshake-era session written down (`SessionRecord`) so that any process
can serve it, and where they are kept (`SessionStore`; `MemorySessionStore` by default). A record
lives `ttl` seconds after its last `touch` or `save`, and `save(..., create=False)` never brings
an ended one back; a store that cannot answer raises `StoreUnavailable`."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ....protocol.auth.identity import Identity

if TYPE_CHECKING:
    from ....protocol.session.session import ServerSession

__all__ = [
    "MemorySessionStore",
    "SessionRecord",
    "SessionStore",
    "StoreUnavailable",
    "caller_key",
]


class StoreUnavailable(Exception):
    """A shared store could not do what was asked: its message names the `store`, the
    `action` that failed and the `cause`."""

    def __init__(self, store: str, action: str, cause: str) -> None:
        super().__init__(f"{store}: {action} failed: {cause}")
        self.store = store
        self.action = action
        self.cause = cause


def caller_key(identity: Any) -> Any:
    """A JSON value naming the caller a session is bound to (None: unauthenticated): an
    `Identity`'s principal, any other value as itself or its `repr`."""
    if identity is None:
        return None
    if isinstance(identity, Identity):
        return ["principal", identity.subject, identity.client_id]
    if isinstance(identity, str | int | float | bool):
        return ["value", identity]
    return ["repr", repr(identity)]


@dataclass
class SessionRecord:
    """What any process needs to serve a handshake-era session.

    Attributes:
        session_id: The `Mcp-Session-Id`.
        protocol_version: What `initialize` negotiated.
        client_info: The client's `clientInfo` from `initialize`.
        client_capabilities: The client's `capabilities` from `initialize`.
        caller: The key of the caller it is bound to (`caller_key`; None: unauthenticated).
        log_level: The level set by `logging/setLevel`.
        created: When it was made (seconds since the epoch).
        resource_subscriptions: The URIs `resources/subscribe` follows, sorted.
    """

    session_id: str
    protocol_version: str
    client_info: dict[str, Any] | None = None
    client_capabilities: dict[str, Any] | None = None
    caller: Any = None
    log_level: str = "debug"
    created: float = field(default_factory=time.time)
    resource_subscriptions: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, session_id: str, session: ServerSession, identity: Any) -> SessionRecord:
        """The record of an initialized session, bound to `identity`'s caller."""
        assert session.protocol_version is not None, "only an initialized session has a record"
        return cls(
            session_id=session_id,
            protocol_version=session.protocol_version,
            client_info=session.client_info,
            client_capabilities=session.client_capabilities,
            caller=caller_key(identity),
            log_level=session.log_level,
            resource_subscriptions=sorted(session.resource_subscriptions),
        )

    def restore(self, session: ServerSession) -> None:
        """Make a freshly opened `session` the initialized session this record describes."""
        session.era = "handshake"
        session.protocol_version = self.protocol_version
        session.client_info = self.client_info
        session.client_capabilities = self.client_capabilities
        session.log_level = self.log_level
        session.resource_subscriptions = set(self.resource_subscriptions)

    def to_json(self) -> bytes:
        """The record as compact JSON."""
        return json.dumps(asdict(self), separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, data: bytes | str) -> SessionRecord:
        """Read a record written by `to_json`.

        Raises:
            ValueError: `data` is not such a record.
        """
        try:
            fields = json.loads(data)
            return cls(**fields)
        except (TypeError, ValueError) as error:
            raise ValueError(f"not a session record: {error}") from error


@runtime_checkable
class SessionStore(Protocol):
    """Where session records are kept; shared by every process serving one MCP URL.

    Every method may raise `StoreUnavailable`.
    """

    async def save(self, record: SessionRecord, ttl: float | None, *, create: bool) -> bool:
        """Write `record`, to expire `ttl` seconds from now (None: never).

        Args:
            record: The record.
            ttl: Seconds it lives without a touch.
            create: True for a new session; False updates an existing record only.

        Returns:
            Whether it was written (False: updating a record that ended or expired).
        """
        ...

    async def load(self, session_id: str) -> SessionRecord | None:
        """The record of `session_id`; None when unknown, ended or expired."""
        ...

    async def touch(self, session_ids: list[str], ttl: float) -> list[str]:
        """Push back the expiry of these records to `ttl` seconds from now.

        Returns:
            The ids among them that have no record any more (ended or expired elsewhere).
        """
        ...

    async def end(self, session_id: str) -> None:
        """End a session everywhere: its record is gone."""
        ...


class MemorySessionStore:
    """Records in this process's memory: the default store, for one process."""

    def __init__(self) -> None:
        self._records: dict[str, tuple[SessionRecord, float | None]] = {}

    def __len__(self) -> int:
        return len(self._records)

    def _live(self, session_id: str) -> SessionRecord | None:
        kept = self._records.get(session_id)
        if kept is None:
            return None
        record, deadline = kept
        if deadline is not None and deadline <= time.monotonic():
            del self._records[session_id]
            return None
        return record

    async def save(self, record: SessionRecord, ttl: float | None, *, create: bool) -> bool:
        """Keep `record` (see `SessionStore.save`)."""
        if (self._live(record.session_id) is None) != create:
            return False  # a new id taken, or an update of a record that is gone
        self._records[record.session_id] = (record, _deadline(ttl))
        return True

    async def load(self, session_id: str) -> SessionRecord | None:
        """The live record of `session_id`, if any."""
        return self._live(session_id)

    async def touch(self, session_ids: list[str], ttl: float) -> list[str]:
        """Push back the expiry of the records still live; return the ids of the others."""
        gone = []
        for session_id in session_ids:
            record = self._live(session_id)
            if record is None:
                gone.append(session_id)
            else:
                self._records[session_id] = (record, _deadline(ttl))
        return gone

    async def end(self, session_id: str) -> None:
        """Forget the record."""
        self._records.pop(session_id, None)


def _deadline(ttl: float | None) -> float | None:
    return None if ttl is None else time.monotonic() + ttl
