"""Serving a `Server`: its lifespan held open around its sessions (once for all the apps of one
server on one event loop), and where calls' `ctx.context` comes from: the `context_factory`,
else `context`, else what the lifespan yielded. A lifespan failing on entry is logged and
raises `LifespanError`; its exit runs shielded from cancellation, and an exit that raises is
logged.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import TYPE_CHECKING, Any, Protocol

from .errors import ToolwireError, UserError
from .protocol.session.app import ServedApp
from .protocol.session.call_context import NO_CONTEXT, ContextSource
from .protocol.session.serving import SessionOpener

if TYPE_CHECKING:
    import asyncio

    from .protocol.session.call_context import CallInfo

__all__ = ["LifespanError", "SharedServing", "check_options"]

logger = logging.getLogger("toolwire")

_START = " did not start: its lifespan failed"


class ConfiguredApp(ServedApp, Protocol):
    """What serving reads of a `Server` (a Protocol: `server.py` imports this module)."""

    name: str
    context: Any
    context_factory: Callable[[CallInfo], Any] | None
    lifespan: Callable[[Any], AbstractAsyncContextManager[Any]] | None


class LifespanError(ToolwireError):
    """A server's lifespan failed on start-up (already logged); serving never began."""


@asynccontextmanager
async def _serving(server: ConfiguredApp) -> AsyncIterator[SessionOpener]:
    """Hold `server`'s lifespan open, if any, and yield what opens its sessions; a lifespan
    that cannot start, or yields a value beside `context`, is logged and `LifespanError`."""
    from .protocol.session.session import ServerSession

    try:
        manager = nullcontext() if server.lifespan is None else server.lifespan(server)
        if not isinstance(manager, AbstractAsyncContextManager):
            raise TypeError(
                "lifespan(server) must return an async context manager "
                f"(e.g. from an @asynccontextmanager function), not {type(manager).__name__}"
            )
        state = await manager.__aenter__()
    except Exception as error:
        _log_failure(server, _START, error)
        raise LifespanError(f"{type(error).__name__}: {error}") from error
    try:
        contexts = _context_source(server, state)
    except UserError as error:
        _log_failure(server, _START, error)
        await _leave(server, manager, None)
        raise LifespanError(error.message) from error
    failure: BaseException | None = None
    try:
        yield functools.partial(ServerSession, server, contexts=contexts)
    except BaseException as error:
        failure = error
        raise
    finally:
        await _leave(server, manager, failure)


class SharedServing:
    """Serves a server once per event loop, however many apps of it ask at once.

    The first entry on a loop enters and exits the lifespan; entries made while it is held
    wait for its start-up, share its opener and leave without touching it. Another event
    loop gets a serving of its own.
    """

    def __init__(self, server: ConfiguredApp) -> None:
        self._server = server
        # The serving held, on its future's loop: its opener, or None if the start-up failed.
        self._held: asyncio.Future[SessionOpener | None] | None = None

    @asynccontextmanager
    async def __call__(self) -> AsyncIterator[SessionOpener]:
        """Serve for the duration, yielding what opens sessions; `LifespanError` if the
        start-up failed (this entry's, or the one it would have shared)."""
        import asyncio

        loop = asyncio.get_running_loop()
        held = self._held
        if held is not None and held.get_loop() is loop:
            opener = await asyncio.shield(held)
            if opener is None:
                raise LifespanError(
                    f"server {self._server.name!r} did not start: its lifespan failed "
                    "(logged above)"
                )
            yield opener
            return
        held = loop.create_future()
        if self._held is None:  # else held on another loop: serve apart, unshared
            self._held = held
        try:
            async with _serving(self._server) as opener:
                held.set_result(opener)
                try:
                    yield opener
                finally:
                    # Before the lifespan's exit: an entry made meanwhile starts afresh
                    # rather than share what is closing.
                    self._let_go(held)
        finally:
            if not held.done():
                held.set_result(None)
            self._let_go(held)

    def _let_go(self, held: asyncio.Future[SessionOpener | None]) -> None:
        if self._held is held:
            self._held = None


def _context_source(server: ConfiguredApp, state: Any) -> ContextSource:
    if server.context_factory is not None:
        return ContextSource(factory=server.context_factory, state=state)
    if server.context is not None:
        if state is not None:
            raise UserError(
                f"Server {server.name!r}: the lifespan yielded a value and context= is set too; "
                "tools see only one ctx.context. Drop one of them, or pass context_factory=, "
                "which receives the lifespan's value as CallInfo.state."
            )
        return ContextSource(value=server.context)
    if state is None:
        return NO_CONTEXT
    return ContextSource(value=state, state=state)


def _log_failure(server: ConfiguredApp, when: str, error: Exception) -> None:
    name = type(error).__name__
    logger.error("server %r%s: %s: %s", server.name, when, name, error, exc_info=error)


async def _leave(
    server: ConfiguredApp, manager: AbstractAsyncContextManager[Any], failure: BaseException | None
) -> None:
    import anyio

    with anyio.CancelScope(shield=True):
        try:
            if failure is None:
                await manager.__aexit__(None, None, None)
            else:
                await manager.__aexit__(type(failure), failure, failure.__traceback__)
        except Exception as error:
            if error is failure:  # handed back unchanged: not the lifespan's own failure
                return
            _log_failure(server, ": its lifespan failed on shutdown", error)


def check_options(context: Any, factory: Any, lifespan: Any) -> None:
    """Reject, when the server is made, serving options that could never work.

    Raises:
        TypeError: Both `context` and `context_factory`, a factory that cannot take the
            `CallInfo`, or a lifespan that is not a callable returning a context manager.
    """
    if factory is not None:
        if context is not None:
            raise TypeError(
                "Server() got both context= and context_factory=: pass one (a factory can "
                "return a shared object)"
            )
        if not callable(factory):
            raise TypeError(f"context_factory must be callable, not {type(factory).__name__}")
        try:
            inspect.signature(factory).bind(None)
        except TypeError:
            raise TypeError(
                "context_factory must accept one positional argument (a toolwire.CallInfo)"
            ) from None
        except ValueError:  # no signature to inspect (some builtins): let it show at call time
            pass
    if lifespan is not None:
        if inspect.isasyncgenfunction(lifespan):
            raise TypeError(
                "lifespan must return an async context manager: decorate the async generator "
                "function with @contextlib.asynccontextmanager"
            )
        if not callable(lifespan):
            raise TypeError(f"lifespan must be callable, not {type(lifespan).__name__}")
