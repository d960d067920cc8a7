"""Many servers as one: connecting and cleaning them up with the Agents SDK's `MCPServerManager`
API (each toolwire server owns its connection in a task of its own, so the manager may connect
in one task and clean up in another), and gathering their tools under unique names."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Iterable
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio

from ..errors import UserError
from .errors import shown_name

if TYPE_CHECKING:
    from ..tools.function_tool import FunctionTool
    from .base import MCPClientServer, Seconds

__all__ = ["MCPServerManager", "all_function_tools"]

logger = logging.getLogger("toolwire.client")


def _checked_bound(value: object, name: str) -> float | None:
    """A connect or cleanup bound: None, or a positive finite number of seconds (the SDK's
    TypeError for another kind of value, its ValueError for zero, negatives, NaN or inf)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a positive number of seconds or None.")
    try:
        seconds = float(value)
    except OverflowError:  # an int too large for a float is no finite bound either
        seconds = math.inf
    if not 0 < seconds < math.inf:  # also refuses NaN, which compares false with everything
        raise ValueError(f"{name} must be a positive finite number of seconds or None.")
    return value


def _label(server: Any) -> Any:
    """A server's name as messages and logs show it (a URL without credentials or query)."""
    name = getattr(server, "name", server)
    return shown_name(name) if isinstance(name, str) else name


class MCPServerManager:
    """Connects and cleans up a group of servers.

    Args:
        servers: The servers (duplicates are managed once).
        connect_timeout_seconds: A bound on each server's `connect()`, in positive finite
            seconds (None: no bound).
        cleanup_timeout_seconds: A bound on each server's `cleanup()`, likewise.
        drop_failed_servers: Leave servers that failed to connect out of `active_servers`.
        strict: Raise the first connection failure instead of recording it.
        suppress_cancelled_error: Record a cancellation raised by a server's `connect()` as
            a failure rather than letting it end the caller.
        connect_in_parallel: Connect all servers at once rather than one after another.
        on_approval_request: An approval callback for every managed server that has none of
            its own (see the server classes); a server that cannot take one (not a toolwire
            client server) is refused, since its calls would go unasked.

    Raises:
        TypeError: A timeout is neither None nor a number.
        ValueError: A timeout is zero, negative, NaN or infinite.
        UserError: `on_approval_request` is not callable, or a server cannot take it.
    """

    def __init__(
        self,
        servers: Iterable[Any],
        *,
        connect_timeout_seconds: Seconds | None = 10.0,
        cleanup_timeout_seconds: Seconds | None = 10.0,
        drop_failed_servers: bool = True,
        strict: bool = False,
        suppress_cancelled_error: bool = True,
        connect_in_parallel: bool = False,
        on_approval_request: Callable[..., Any] | None = None,
    ) -> None:
        unique = list({id(server): server for server in servers}.values())
        if on_approval_request is not None:
            from .approvals import callback_for
            from .base import MCPClientServer

            callback_for(on_approval_request)

            for server in unique:
                if not isinstance(server, MCPClientServer):
                    raise UserError(
                        "MCPServerManager(on_approval_request=...) cannot gate "
                        f"{_label(server)!r}: it is a {type(server).__name__}, not a toolwire "
                        "client server, so its calls would run unasked. Use toolwire.client's "
                        "server classes, or its own require_approval."
                    )
                if server.on_approval_request is None:
                    server.on_approval_request = on_approval_request
        self.on_approval_request = on_approval_request
        self._servers = unique
        self.drop_failed_servers = drop_failed_servers
        self.strict = strict
        self.suppress_cancelled_error = suppress_cancelled_error
        self.connect_in_parallel = connect_in_parallel
        # Checked here: a bad bound would fail each connect, or leave each server running.
        self.connect_timeout_seconds = _checked_bound(
            connect_timeout_seconds, "connect_timeout_seconds"
        )
        self.cleanup_timeout_seconds = _checked_bound(
            cleanup_timeout_seconds, "cleanup_timeout_seconds"
        )
        self._connected: list[Any] = []
        self._errors: dict[Any, BaseException] = {}  # the failed servers, in order

    @property
    def all_servers(self) -> list[Any]:
        """Every managed server, in the order given."""
        return list(self._servers)

    @property
    def active_servers(self) -> list[Any]:
        """The servers to hand to an agent: connected ones (and failed ones when kept)."""
        if self.drop_failed_servers:
            return [server for server in self._servers if any(server is s for s in self._connected)]
        return list(self._servers)

    @property
    def failed_servers(self) -> list[Any]:
        """The servers whose last connection attempt failed."""
        return list(self._errors)

    @property
    def errors(self) -> dict[Any, BaseException]:
        """What each failed server raised."""
        return dict(self._errors)

    async def _connect_one(self, server: Any, *, strict: bool) -> None:
        try:
            with anyio.fail_after(self.connect_timeout_seconds):
                await server.connect()
        except asyncio.CancelledError as error:
            if not self.suppress_cancelled_error:
                raise
            self._record(server, error)
        except Exception as error:
            self._record(server, error)
            if strict:
                raise
        else:
            self._errors.pop(server, None)
            if not any(server is s for s in self._connected):
                self._connected.append(server)

    def _record(self, server: Any, error: BaseException) -> None:
        logger.warning("MCP server %r failed to connect: %r", _label(server), error)
        self._errors[server] = error

    async def _connect(self, servers: list[Any]) -> list[Any]:
        before = list(self._connected)
        try:
            if self.connect_in_parallel:
                # Every server gets its attempt (one failing cancels none of the others);
                # under `strict`, the first failure is raised afterwards, as itself.
                async with anyio.create_task_group() as group:
                    for server in servers:
                        group.start_soon(partial(self._connect_one, server, strict=False))
                if self.strict:
                    for server, error in self._errors.items():
                        if any(server is s for s in servers) and isinstance(error, Exception):
                            raise error
            else:
                for server in servers:
                    await self._connect_one(server, strict=self.strict)
        except BaseException:
            # As in the SDK: what this attempt connected is closed again (the caller, who
            # gets the error, has nothing to clean up), and the active list is as it was.
            for server in servers:
                if not any(server is s for s in before):
                    await self._cleanup_one(server)
            self._connected = before
            raise
        return self.active_servers

    async def connect_all(self) -> list[Any]:
        """Connect every server not yet connected; return `active_servers`."""
        waiting = [s for s in self._servers if not any(s is c for c in self._connected)]
        return await self._connect(waiting)

    async def reconnect(self, *, failed_only: bool = True) -> list[Any]:
        """Connect again the failed servers (or, with `failed_only=False`, all of them)."""
        if failed_only:
            return await self._connect(list(self._errors))
        await self.cleanup_all()
        return await self._connect(list(self._servers))

    async def _cleanup_one(self, server: Any) -> None:
        with anyio.CancelScope(shield=True):
            try:
                with anyio.move_on_after(self.cleanup_timeout_seconds):
                    await server.cleanup()
            except Exception as error:
                logger.warning("MCP server %r failed to clean up: %r", _label(server), error)

    async def cleanup_all(self) -> None:
        """Clean up every server (each bounded; failures are logged, not raised)."""
        for server in reversed(self._servers):
            await self._cleanup_one(server)
        self._connected = []

    async def __aenter__(self) -> MCPServerManager:
        await self.connect_all()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.cleanup_all()


async def all_function_tools(
    servers: Iterable[MCPClientServer],
    on_approval_request: Callable[..., Any] | None = None,
    *,
    prefix_tool_names: bool | None = None,
    convert_schemas_to_strict: bool = False,
) -> list[FunctionTool]:
    """The tools of several connected servers, in order, with unique names.

    Args:
        servers: Connected servers.
        on_approval_request: The approval callback every tool gets (see `function_tools`).
        prefix_tool_names: Prefix every name with its server's; None leaves it to each
            server's own `prefix_tool_names`.
        convert_schemas_to_strict: Make the schemas strict where possible.

    Raises:
        UserError: Two tools would have the same name; the message names them and their
            servers.
    """
    tools: list[FunctionTool] = []
    owners: dict[str, list[str]] = {}
    for server in servers:
        made = await server.function_tools(
            on_approval_request,
            convert_schemas_to_strict=convert_schemas_to_strict,
            prefix_tool_names=prefix_tool_names,
        )
        for tool in made:
            owners.setdefault(tool.name, []).append(_label(server))
        tools.extend(made)
    clashes = {name: where for name, where in owners.items() if len(where) > 1}
    if clashes:
        listed = "; ".join(
            f"'{name}' on {', '.join(repr(server) for server in where)}"
            for name, where in sorted(clashes.items())
        )
        raise UserError(
            f"Duplicate tool names across MCP servers: {listed}. Pass prefix_tool_names=True "
            "to prefix each tool with its server's name, or filter the tools (tool_filter)."
        )
    return tools
