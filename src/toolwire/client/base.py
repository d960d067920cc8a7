"""The shared body of the client classes: connecting, listing, calling, retrying, approvals,
and remote tools as `FunctionTool`s, with the interface of the Agents SDK's `agents.mcp` servers
(names, parameters, defaults, messages, the hooks its run loop calls). A task of its own (`Link`)
holds the connection, so any two tasks may open and close it; it reopens when the server restarts
or the session expires, and every failure names the server and the tool. A converted tool returns
one text block as a `str`, other blocks as `ToolOutput*` values, `structuredContent` as JSON when
asked, an `isError` result as its text, and a failure through its failure function."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import json
import logging
import math
import re
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeGuard

import anyio

from ..context import RunContextWrapper
from ..errors import ModelBehaviorError, UserError
from ..protocol.wire.content import content_to_outputs
from ..schema.strict import ensure_strict_json_schema
from ..tools.failure import (
    UNSET_FAILURE_ERROR_FUNCTION,
    ToolErrorFunction,
    default_tool_error_function,
    dont_log_tool_data,
)
from ..tools.function_tool import FunctionTool
from .approvals import (
    ApprovalPolicy,
    CallScope,
    MCPToolApprovalFunction,
    RemoteTool,
    callback_for,
    field_of,
    note_call,
    noted_call,
    resolved,
    take_call,
)
from .errors import NOT_CONNECTED, Diagnosis, MCPCallError, diagnose, shown_name
from .params import ToolFilterContext

if TYPE_CHECKING:
    from types import TracebackType

    from ..context import ToolContext
    from .params import ToolFilter

__all__ = ["Link", "LinkClosedError", "MCPClientServer", "MCPToolMetaContext", "prefixed_name"]

logger = logging.getLogger("toolwire.client")

JsonObject = dict[str, Any]  # a tool's arguments, a request's `_meta`

# (progress, total, message) -> awaitable: the `mcp` client's progress callback shape.
ProgressCallback = Callable[[float, "float | None", "str | None"], Awaitable[None]]

Seconds = float  # a duration; an int is accepted too, as everywhere in Python

# "handshake": 2024-11-05 to 2025-11-25, opened by `initialize`; "modern": 2026-07-28.
ProtocolMode = Literal["auto", "handshake", "modern"]
PROTOCOL_MODES: tuple[ProtocolMode, ...] = ("auto", "handshake", "modern")


def _is_number(value: object) -> TypeGuard[float]:
    """An int or a float (a bool is neither here)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _checked_session_timeout(value: object) -> float | None:
    """Seconds for each request, or None (None and 0 both mean no timeout)."""
    if value is None:
        return None
    if not _is_number(value):
        raise TypeError("client_session_timeout_seconds must be a number of seconds or None.")
    if not math.isfinite(value) or value < 0:
        raise ValueError("client_session_timeout_seconds must be zero or a positive finite value.")
    if value == 0:
        return None
    try:
        timedelta(seconds=value)
    except OverflowError:
        raise ValueError(
            "client_session_timeout_seconds must fit in a datetime.timedelta."
        ) from None
    return float(value)


def _checked_backoff_max(value: object) -> float | None:
    """The cap on the delay between retries, or None for no cap."""
    if value is None:
        return None
    if not _is_number(value) or not math.isfinite(value) or value < 0:
        raise ValueError(
            "retry_backoff_seconds_max must be a non-negative finite number of seconds or None."
        )
    return float(value)


def _checked_retries(attempts: object, base: object) -> tuple[int, float]:
    """`max_retry_attempts` (-1: no limit) and `retry_backoff_seconds_base` (a negative base
    counts as no delay)."""
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < -1:
        raise ValueError(
            "max_retry_attempts must be a whole number of retries (-1: no limit), "
            f"not {attempts!r}."
        )
    if not _is_number(base) or math.isnan(base):
        raise ValueError(f"retry_backoff_seconds_base must be a number of seconds, not {base!r}.")
    return attempts, max(0.0, base)


def _checked_connect_timeout(value: object) -> float | None:
    """Seconds a connection may take to open, or None for the transport's own limits."""
    if value is None:
        return None
    if not _is_number(value) or not math.isfinite(value) or value <= 0:
        raise ValueError(
            "connect_timeout_seconds must be a positive finite number of seconds or None, "
            f"not {value!r}."
        )
    return value


def _checked_list_pages(value: object) -> int | None:
    """How many pages one listing may read, or None for no limit."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("max_list_pages must be a positive integer or None.")
    if value < 1:
        raise ValueError("max_list_pages must be a positive integer or None.")
    return value


def _checked_protocol_mode(value: object) -> ProtocolMode:
    """The protocol era a client pins ("handshake", "modern"), or "auto" to negotiate."""
    if value == "legacy":
        raise ValueError(
            'protocol_mode="legacy" is now protocol_mode="handshake" (the era opened by '
            "`initialize`, 2024-11-05 to 2025-11-25)."
        )
    if isinstance(value, str) and value in PROTOCOL_MODES:
        return value
    raise ValueError(f'protocol_mode must be "auto", "handshake" or "modern", not {value!r}.')


# How long closing waits for the owner task before cancelling it, then after cancelling it.
_CLOSE_SECONDS = 10.0
_CANCELLED_CLOSE_SECONDS = 5.0


class LinkClosedError(Exception):
    """The connection ended (the server exited, or its stream closed)."""


class Link:
    """A client `factory()` yields, opened by `open()` and closed by `close()` from any tasks."""

    def __init__(self, factory: Callable[[], AbstractAsyncContextManager[Any]], label: str):
        self._factory = factory
        self._label = label
        self.client: Any = None  # the `mcp.Client`, once `open()` succeeded
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None

    @property
    def alive(self) -> bool:
        """Whether the owner task still holds the connection open."""
        return self._task is not None and not self._task.done() and self.client is not None

    async def _own(self) -> None:
        try:
            async with self._factory() as client:
                self.client = client
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as error:
            # The one interesting exception inside nested single-member groups.
            while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
                error = error.exceptions[0]
            self._failure = error
            if self._ready.is_set():
                logger.warning("MCP server %r: connection ended: %r", self._label, self._failure)
        finally:
            self._ready.set()

    async def open(self, timeout: float | None) -> None:
        """Start the owner task and wait until the client is ready; a failure undoes it."""
        self._task = asyncio.get_running_loop().create_task(
            self._own(), name=f"toolwire-mcp-client {self._label}"
        )
        try:
            with anyio.fail_after(timeout):
                await self._ready.wait()
        except BaseException:
            await self.close()
            raise
        if self.client is None or self._task.done():
            failure = self._failure or LinkClosedError("the connection closed while opening")
            await self.close()
            raise failure

    async def close(self) -> None:
        """Stop the owner task and wait for it (bounded), even from a cancelled caller."""
        task = self._task
        if task is None:
            return
        self._stop.set()
        with anyio.CancelScope(shield=True):
            done, _ = await asyncio.wait({task}, timeout=_CLOSE_SECONDS)
            if not done:
                logger.warning("MCP server %r: closing took too long, cancelling", self._label)
                task.cancel()
                await asyncio.wait({task}, timeout=_CANCELLED_CLOSE_SECONDS)
        if task.done() and not task.cancelled():
            with contextlib.suppress(BaseException):
                task.result()
        self.client = None


# OpenAI function names: letters, digits, '_' and '-', at most 64 characters.
_NAME_LIMIT = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _name_part(text: str, fallback: str) -> str:
    """`text` with each character a function name cannot hold made `_`, without `_` or `-`
    at its ends (`fallback` when nothing is left)."""
    return _UNSAFE.sub("_", text).strip("_-") or fallback


def prefixed_name(server_name: str, tool_name: str) -> str:
    """`mcp_<server>__<tool>` as the Agents SDK names a tool with its server's name: each part
    made safe for a function name, and at most 64 characters (a shortened name ends with 8 hex
    digits of a hash of both names, so two stay apart).

    Args:
        server_name: The server's name.
        tool_name: The tool's name on that server.

    Returns:
        The prefixed name.
    """
    name = f"mcp_{_name_part(server_name, 'server')}__{_name_part(tool_name, 'tool')}"
    if len(name) <= _NAME_LIMIT:
        return name
    digest = hashlib.sha1(f"{server_name}\x00{tool_name}".encode()).hexdigest()[:8]
    return f"{name[: _NAME_LIMIT - 9].rstrip('_-') or 'mcp'}_{digest}"


class MCPClientServer:
    """An MCP server reached through the `mcp` client; subclasses say how (`_open_client`)."""

    def __init__(
        self,
        params: Any,
        cache_tools_list: bool = False,
        name: str | None = None,
        client_session_timeout_seconds: Seconds | None = 5,
        tool_filter: ToolFilter = None,
        use_structured_content: bool = False,
        max_retry_attempts: int = 0,
        retry_backoff_seconds_base: float = 1.0,
        message_handler: Any = None,
        require_approval: Any = None,
        failure_error_function: ToolErrorFunction | Any | None = UNSET_FAILURE_ERROR_FUNCTION,
        tool_meta_resolver: Callable[..., Any] | None = None,
        custom_data_extractor: Callable[..., Any] | None = None,
        retry_backoff_seconds_max: float | None = None,
        *,
        tool_input_guardrails: list[Any] | None = None,
        tool_output_guardrails: list[Any] | None = None,
        max_list_pages: int | None = None,
        protocol_mode: ProtocolMode = "auto",
        prefix_tool_names: bool = False,
        connect_timeout_seconds: float | None = None,
        elicitation_callback: Any = None,
        sampling_callback: Any = None,
        logging_callback: Any = None,
        list_roots_callback: Any = None,
        on_approval_request: MCPToolApprovalFunction | None = None,
    ) -> None:
        self.params = params
        self.cache_tools_list = cache_tools_list
        self._name = name
        self.client_session_timeout_seconds = client_session_timeout_seconds
        self._request_timeout = _checked_session_timeout(client_session_timeout_seconds)
        self.tool_filter = tool_filter
        self.use_structured_content = use_structured_content
        self.max_retry_attempts, self.retry_backoff_seconds_base = _checked_retries(
            max_retry_attempts, retry_backoff_seconds_base
        )
        self.retry_backoff_seconds_max = _checked_backoff_max(retry_backoff_seconds_max)
        self.message_handler = message_handler
        self.require_approval = require_approval
        self.on_approval_request = callback_for(on_approval_request)
        self._failure_error_function = failure_error_function
        self.tool_input_guardrails = tool_input_guardrails
        self._meta_resolver = tool_meta_resolver
        self.tool_output_guardrails = tool_output_guardrails
        self.custom_data_extractor = custom_data_extractor
        self.max_list_pages = _checked_list_pages(max_list_pages)
        self.protocol_mode = _checked_protocol_mode(protocol_mode)
        self.prefix_tool_names = prefix_tool_names
        self.connect_timeout_seconds = _checked_connect_timeout(connect_timeout_seconds)
        # Handed to the `mcp` client as given; one left out keeps that client's default
        # (and its capability undeclared).
        callbacks = {
            "elicitation_callback": elicitation_callback,
            "sampling_callback": sampling_callback,
            "logging_callback": logging_callback,
            "list_roots_callback": list_roots_callback,
        }
        self._client_options = {key: value for key, value in callbacks.items() if value is not None}
        self._link: Link | None = None
        self._connected = False  # connect() succeeded and cleanup() has not run since
        self._reconnecting = asyncio.Lock()  # held while a connection opens or is dropped
        self._epoch = 0  # counts cleanups: a connection that opened across one is closed
        self._tools: list[Any] | None = None  # the last full (unfiltered) list
        self._tools_fresh = False
        self._version_pin: str | None = None  # a version a -32022 answer made us switch to

    @property
    def require_approval(self) -> Any:
        """The `require_approval` setting; one assigned later is checked and governs the next
        call (a setting that silently stayed the old one would let calls run unasked)."""
        return self._require_approval

    @require_approval.setter
    def require_approval(self, setting: Any) -> None:
        # Checked now, so a bad policy fails where it is written (the SDK's messages). The
        # first applies while nobody answers (runs pause), the second when a callback does.
        self._approval_policy = ApprovalPolicy.resolve(setting, has_callback=False)
        self._asking_policy = ApprovalPolicy.resolve(setting, has_callback=True)
        self._require_approval = setting

    # -- identity -----------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The server's readable name (the SDK's default form when none was given)."""
        return self._name if self._name is not None else self._default_name()

    @property
    def _shown_name(self) -> str:
        """The name as messages and logs show it (a URL without credentials or query)."""
        return shown_name(self.name)

    def _default_name(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self._shown_name!r})"

    # -- connection ---------------------------------------------------------------------

    def _open_client(self) -> AbstractAsyncContextManager[Any]:
        raise NotImplementedError

    def _client(self, target: Any) -> AbstractAsyncContextManager[Any]:
        """An `mcp.Client` over `target` (a transport or its streams) with this server's options."""
        from mcp import Client

        mode = self._version_pin or self.protocol_mode
        # `mcp.Client` names the handshake era "legacy" and takes a version for the other.
        mode = {"handshake": "legacy", "modern": "2026-07-28"}.get(mode, mode)
        return Client(
            target,
            mode=mode,
            read_timeout_seconds=self._request_timeout,
            message_handler=self.message_handler,
            **self._client_options,
        )

    def _refusal(self) -> str | None:
        """The HTTP status a server refused the handshake with, if it did (it says more than
        the stand-in error the `mcp` client makes of it)."""
        return None

    async def _describe_loss(self) -> str:
        """More on a lost connection (a child process's exit status and stderr), or ""."""
        return ""

    def _transport_alive(self) -> bool:
        """Whether the carrier (a child process) still lives; a dead one is replaced first."""
        return True

    def _describe_silence(self) -> str:
        """More on a request left unanswered (what the server wrote instead), or ""."""
        return ""

    @property
    def client(self) -> Any:
        """The live `mcp.Client` (None when not connected)."""
        return self._link.client if self._link is not None else None

    @property
    def session(self) -> Any:
        """The `mcp` ClientSession under the client (None when not connected)."""
        return getattr(self.client, "session", None)

    @property
    def protocol_version(self) -> str | None:
        """The protocol version agreed with the server (None when not connected)."""
        return getattr(self.client, "protocol_version", None)

    async def connect(self) -> None:
        """Start the server (stdio) or open the connection (HTTP), and initialize.

        The connection is held by a task of its own, so `cleanup()` may run in another task.

        Raises:
            MCPCallError: The server could not be reached or did not initialize; the message
                names the server.
        """
        async with self._reconnecting:
            if self._link is None or not self._link.alive:
                await self._open_link()
            self._connected = True

    async def _open_link(self) -> Any:
        """Close the last connection, if any, then open a new one and return its client (with
        `_reconnecting` held, so that connect() and a reconnect replace a dead link alike)."""
        epoch = self._epoch
        await self._drop_link()
        link = Link(self._open_client, self._shown_name)
        try:
            await link.open(self.connect_timeout_seconds)
        except Exception as error:
            found = diagnose(error, self.connect_timeout_seconds, connecting=True)
            reason = (self._refusal() or found.reason) + await self._describe_loss()
            message = f"Failed to connect to MCP server '{self._shown_name}': {reason}"
            raise MCPCallError(
                self._shown_name, "initialize", reason, lost=True, message=message
            ) from error
        if epoch != self._epoch:
            # cleanup() ran while this one opened: kept, it (and its process) would outlive it.
            await link.close()
            raise UserError(NOT_CONNECTED)
        self._link = link
        return link.client

    async def _drop_link(self) -> None:
        old, self._link = self._link, None
        if old is not None:
            await old.close()

    async def cleanup(self) -> None:
        """Close the connection and end the server process (bounded, safe to call twice)."""
        self._connected = False
        self._epoch += 1
        await self._drop_link()

    async def __aenter__(self) -> Any:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.cleanup()

    def _require_connection(self) -> None:
        if not self._connected:
            raise UserError(NOT_CONNECTED)

    def _ready_client(self) -> Any:
        """The client when the connection is healthy, else None (no await, no lock)."""
        link = self._link
        if link is not None and link.alive and self._transport_alive():
            return link.client
        return None

    async def _live_client(self) -> Any:
        """The client to send a request through, reconnecting when the last one died."""
        self._require_connection()
        ready = self._ready_client()
        if ready is not None:
            return ready
        async with self._reconnecting:
            ready = self._ready_client()
            if ready is not None:
                return ready
            logger.info("MCP server %r: reconnecting", self._shown_name)
            self._tools_fresh = False
            return await self._open_link()

    async def _forget_link(self) -> None:
        """Drop a connection that failed, so that the next request opens a new one."""
        async with self._reconnecting:
            await self._drop_link()

    # -- approvals ----------------------------------------------------------------------

    @property
    def tool_meta_resolver(self) -> Callable[..., Any] | None:
        """The `tool_meta_resolver` given, as the SDK reads it before each call; with an approval
        callback, wrapped to note the run the call belongs to (the callback is shown it)."""
        if self.on_approval_request is None:
            return self._meta_resolver
        return self._note_run_then_resolve

    @tool_meta_resolver.setter
    def tool_meta_resolver(self, resolver: Callable[..., Any] | None) -> None:
        self._meta_resolver = resolver

    async def _note_run_then_resolve(self, context: MCPToolMetaContext) -> Any:
        # A copy: a resolver that edits the arguments it is shown must not unmatch the call.
        arguments = copy.deepcopy(context.arguments)
        note_call(CallScope(self, context.tool_name, arguments, context.run_context))
        if self._meta_resolver is None:
            return None
        return await resolved(self._meta_resolver(context))

    async def _gated_call(
        self,
        tool_name: str,
        arguments: JsonObject | None,
        send: Callable[[Any], Awaitable[Any]],
    ) -> Any:
        """Send one call once the approval callback allowed it (the callback is shown the run's
        context, a fresh one outside a run); a refusal is an `isError` result saying why.

        Raises:
            UserError: The callback answered something else than `{"approve": bool, ...}`.
        """
        scope = take_call(self, tool_name, arguments)
        callback = (scope.callback if scope is not None else None) or self.on_approval_request
        if callback is None or (scope is not None and scope.approved):
            return await self._request(tool_name, send)
        run_context: Any = scope.run_context if scope is not None else RunContextWrapper(None)
        agent = scope.agent if scope is not None else None
        if agent is None:
            agent = getattr(run_context, "agent", None)
        call_id = getattr(run_context, "tool_call_id", "")
        remote_tool = self._last_listed(tool_name)
        if remote_tool is None and self._asking_policy.kind != "table":
            await self._fetch_tools()  # the policy reads its annotations
            remote_tool = self._last_listed(tool_name)
        asked = self._asking_policy.needs_approval_for(
            tool_name=tool_name,
            annotations=field_of(remote_tool, "annotations"),
            agent=agent,
            remote_tool=remote_tool,
        )
        if callable(asked):
            asked = await asked(run_context, dict(arguments or {}), call_id)
        if not asked:
            return await self._request(tool_name, send)
        answer = await RemoteTool(self, tool_name, callback).ask(
            run_context, arguments or {}, call_id
        )
        if answer["approve"]:
            return await self._request(tool_name, send)
        from mcp.types import CallToolResult, TextContent

        reason = (answer.get("reason") or "").strip() or "no reason given"
        refusal = (
            f"Tool call rejected: the call to '{tool_name}' on MCP server '{self._shown_name}' "
            f"was not approved ({reason}). The tool did not run."
        )
        return CallToolResult(content=[TextContent(type="text", text=refusal)], is_error=True)

    # -- requests -----------------------------------------------------------------------

    async def _request(self, target: str, send: Callable[[Any], Awaitable[Any]]) -> Any:
        """Send one request with the retry policy, reconnecting as needed; `MCPCallError` if not."""
        attempt = 0
        fresh_session_tried = False
        version_retried = False
        while True:
            try:
                return await send(await self._live_client())
            except Exception as caught:
                error = caught
            if isinstance(error, UserError):  # MCPCallError included: already explained
                raise error
            found = diagnose(error, self._request_timeout)
            reason = found.reason
            if found.lost:
                reason += await self._describe_loss()
                await self._forget_link()
            else:
                reason += self._describe_silence()
            if found.supported and not version_retried and await self._adopt_version(found):
                # Refused for its protocol version, before acting: once more, at a version
                # both sides speak (what a pinned client must do; "auto" negotiated it).
                version_retried = True
                logger.info("MCP server %r: %s; retrying", self._shown_name, found.reason)
                continue
            if found.unprocessed and not fresh_session_tried:
                # The server refused the old session before acting: one more try on a
                # new connection is free (it is not a retry of anything that ran).
                fresh_session_tried = True
                logger.info("MCP server %r: %s; reconnecting", self._shown_name, found.reason)
                continue
            limit = self.max_retry_attempts
            if limit >= 0 and attempt >= limit:
                raise MCPCallError(self._shown_name, target, reason, lost=found.lost) from error
            # A float power: unlimited retries never overflow (the delay tops out at inf).
            delay: float = self.retry_backoff_seconds_base * 2.0 ** min(attempt, 1000)
            if self.retry_backoff_seconds_max is not None:
                delay = min(delay, self.retry_backoff_seconds_max)
            attempt += 1
            logger.info(
                "MCP server %r: %s failed (%s); retry %d in %.2f s",
                self._shown_name, target, found.reason, attempt, delay,
            )  # fmt: skip
            await asyncio.sleep(delay)

    async def _adopt_version(self, found: Diagnosis) -> bool:
        """Whether a request refused for its version may be sent again: at the current one when
        offered, else at the newest mutual modern-era version, reconnecting."""
        if self.protocol_version in found.supported:
            return True
        if self.protocol_mode == "handshake":
            return False
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # oldest first

        mutual = [version for version in MODERN_PROTOCOL_VERSIONS if version in found.supported]
        if not mutual:
            return False
        self._version_pin = mutual[-1]
        await self._forget_link()
        return True

    async def list_tools(
        self, run_context: RunContextWrapper[Any] | None = None, agent: Any = None
    ) -> list[Any]:
        """The server's tools (`mcp.types.Tool`), through the cache and the tool filter.

        Raises:
            UserError: Not connected, or a callable filter without `run_context` and `agent`.
        """
        self._require_connection()
        if not (self.cache_tools_list and self._tools_fresh and self._tools is not None):
            await self._fetch_tools()
        assert self._tools is not None
        # Copies: the last listing decides required arguments and approvals, so what a caller
        # or a filter does to a tool it was handed must not reach it.
        tools, chooser = copy.deepcopy(self._tools), self.tool_filter
        if chooser is None:
            return tools
        if isinstance(chooser, dict):  # static: allowed first, then blocked
            allowed = chooser.get("allowed_tool_names")
            blocked = chooser.get("blocked_tool_names") or ()
            return [
                tool
                for tool in tools
                if (allowed is None or tool.name in allowed) and tool.name not in blocked
            ]
        if run_context is None or agent is None:
            raise UserError("run_context and agent are required for dynamic tool filtering")
        if not callable(chooser):  # the SDK's error, not every tool silently left out
            raise ValueError("Tool filter must be callable for dynamic filtering")
        context = ToolFilterContext(run_context=run_context, agent=agent, server_name=self.name)
        return [tool for tool in tools if await self._filter_keeps(chooser, context, tool)]

    async def _filter_keeps(self, chooser: Any, context: ToolFilterContext, tool: Any) -> bool:
        try:
            return bool(await resolved(chooser(context, tool)))
        except Exception as error:  # the SDK leaves a tool out when its filter fails
            logger.error(
                "MCP server %r: the tool filter failed on %r: %r",
                self._shown_name,
                tool.name,
                error,
            )
            return False

    async def _all_pages(self, fetch: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
        """The pages of a paginated list, following cursors up to `max_list_pages`."""
        pages: list[Any] = []
        cursor: str | None = None
        followed: set[str] = set()
        # Unbounded still stops somewhere: cursors handed out forever would hold the caller.
        bound = self.max_list_pages if self.max_list_pages is not None else 10_000
        while len(pages) < bound:
            pages.append(await fetch(cursor=cursor))
            cursor = getattr(pages[-1], "next_cursor", None)
            if not cursor:
                return pages
            if cursor in followed:  # a loop: the same pages again, up to the bound
                raise UserError(
                    f"MCP server '{self._shown_name}' returned a repeated cursor while "
                    f"listing {field}."
                )
            followed.add(cursor)
        if self.max_list_pages is not None:  # the SDK's words for the bound it shares
            raise UserError(
                f"MCP {field[:-1]} listing exceeded max_list_pages. Increase max_list_pages "
                "to allow more pages, or check the server pagination."
            )
        raise UserError(
            f"MCP server '{self._shown_name}' has more than {bound} page(s) of {field}; "
            "nothing was returned or cached"
        )

    async def _fetch_tools(self) -> None:
        """List every tool on the server (all pages) and remember the list."""
        pages = await self._request(
            "method:tools/list", lambda client: self._all_pages(client.list_tools, "tools")
        )
        self._tools = [tool for page in pages for tool in page.tools]
        self._tools_fresh = True

    def _last_listed(self, tool_name: str) -> Any:
        """The tool of that name in the last listing, or None."""
        return next((tool for tool in self._tools or () if tool.name == tool_name), None)

    def invalidate_tools_cache(self) -> None:
        """Make the next `list_tools()` ask the server again."""
        self._tools_fresh = False

    @property
    def cached_tools(self) -> list[Any] | None:
        """Copies of the tools last listed (unfiltered), or None before the first listing."""
        return copy.deepcopy(self._tools) if self._tools is not None else None

    async def call_tool(
        self,
        tool_name: str,
        arguments: JsonObject | None,
        meta: JsonObject | None = None,
        *,
        progress_callback: ProgressCallback | None = None,
    ) -> Any:
        """Call a tool and return the `mcp.types.CallToolResult` (an `isError` one included).

        With an `on_approval_request` callback, the call is first put to it as the policy says;
        a denied call is not sent, and its result is an `isError` one naming the tool and why.

        Args:
            tool_name: The remote tool's name.
            arguments: Its arguments (None: none).
            meta: `_meta` for the request.
            progress_callback: Awaited with `(progress, total, message)` for each progress
                notification the server sends about this call.

        Raises:
            UserError: Not connected, or required arguments missing (known from the last list),
                or the approval callback answered something else than `{"approve": bool}`.
            MCPCallError: The request failed; the message names the server and the tool.
        """
        self._require_connection()
        self._check_required(tool_name, arguments)
        return await self.call_tool_unchecked(
            tool_name, arguments, meta, progress_callback=progress_callback
        )

    def _check_required(self, tool_name: str, arguments: Any) -> None:
        """Refuse a call that leaves out a key the tool's listed schema requires, as the SDK
        does: only while the listing is current (not after `invalidate_tools_cache()` or a
        reconnect, when the tool may have changed), naming the missing keys in sorted order."""
        listed = self._last_listed(tool_name) if self._tools_fresh else None
        schema = getattr(listed, "input_schema", None)
        required = schema.get("required") if isinstance(schema, dict) else None
        if not isinstance(required, list) or not required:
            return
        failed = f"Failed to call tool '{tool_name}' on MCP server '{self._shown_name}': "
        if arguments is not None and not isinstance(arguments, dict):
            raise UserError(failed + "arguments must be an object.")
        given = arguments or {}
        missing = sorted(key for key in required if isinstance(key, str) and key not in given)
        if missing:
            raise UserError(failed + f"missing required parameters: {', '.join(missing)}")

    def call_tool_unchecked(
        self,
        tool_name: str,
        arguments: JsonObject | None,
        meta: JsonObject | None = None,
        *,
        progress_callback: ProgressCallback | None = None,
    ) -> Coroutine[Any, Any, Any]:
        """`call_tool` without the required-arguments check (the server judges them): the
        request's own coroutine, not one wrapping it, since converted tools call this each time.
        """
        payload, meta = arguments or {}, meta or None

        def send(client: Any) -> Any:
            return client.call_tool(
                tool_name, payload, progress_callback=progress_callback, meta=meta
            )

        # The gate asks the server's approval callback, or the one noted for this call.
        scope = noted_call(self)
        if self.on_approval_request is not None or (scope is not None and scope.callback):
            return self._gated_call(tool_name, arguments, send)
        return self._request(tool_name, send)

    # -- prompts and resources ----------------------------------------------------------

    async def list_prompts(self) -> Any:
        """The server's prompts (`mcp.types.ListPromptsResult`, every page)."""
        pages = await self._request(
            "method:prompts/list", lambda client: self._all_pages(client.list_prompts, "prompts")
        )
        prompts = [prompt for page in pages for prompt in page.prompts]
        return pages[0].model_copy(update={"prompts": prompts, "next_cursor": None})

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """One prompt, rendered with `arguments` (`mcp.types.GetPromptResult`)."""
        return await self._request(
            f"prompt:{name}", lambda client: client.get_prompt(name, arguments)
        )

    async def list_resources(self, cursor: str | None = None) -> Any:
        """One page of the server's resources (`mcp.types.ListResourcesResult`)."""
        return await self._request(
            "method:resources/list", lambda client: client.list_resources(cursor=cursor)
        )

    async def list_resource_templates(self, cursor: str | None = None) -> Any:
        """One page of the server's resource templates."""
        return await self._request(
            "method:resources/templates/list",
            lambda client: client.list_resource_templates(cursor=cursor),
        )

    async def read_resource(self, uri: str) -> Any:
        """A resource's contents (`mcp.types.ReadResourceResult`)."""
        return await self._request(f"resource:{uri}", lambda client: client.read_resource(uri))

    # -- tools for models ---------------------------------------------------------------

    async def function_tools(
        self,
        on_approval_request: Callable[..., Any] | None = None,
        *,
        convert_schemas_to_strict: bool = False,
        run_context: RunContextWrapper[Any] | None = None,
        agent: Any = None,
        prefix_tool_names: bool | None = None,
    ) -> list[FunctionTool]:
        """The server's tools as toolwire `FunctionTool`s that call the server.

        Args:
            on_approval_request: Decides each call that needs approval (sync or async), in
                place of the server's own `on_approval_request`; with neither, the decision
                is left to the run (the tool carries `needs_approval`).
            convert_schemas_to_strict: Make the schemas strict where possible (a schema that
                cannot be is kept as it is, with the reason logged).
            run_context: Passed to a callable tool filter.
            agent: Passed to a callable tool filter.
            prefix_tool_names: Prefix the names with the server's for these tools only; None
                follows the server's `prefix_tool_names`.

        Returns:
            One tool per remote tool, named with the server's prefix when asked.
        """
        callback = callback_for(on_approval_request, self)
        prefixed = self.prefix_tool_names if prefix_tool_names is None else prefix_tool_names
        made: list[FunctionTool] = []
        for tool in await self.list_tools(run_context, agent):
            shown = prefixed_name(self._shown_name, tool.name) if prefixed else tool.name
            schema, is_strict = _schema(self._shown_name, tool, convert_schemas_to_strict)
            # With a callback, the gate asks it at each call: the tool never pauses a run.
            needs_approval = (
                False if callback is not None else self._get_needs_approval_for_tool(tool, agent)
            )
            made.append(
                FunctionTool(
                    name=shown,
                    description=tool.description or getattr(tool, "title", None) or "",
                    params_json_schema=schema,
                    on_invoke_tool=_invoker(
                        self, tool.name, shown, callback, agent, getattr(tool, "meta", None)
                    ),
                    strict_json_schema=is_strict,
                    tool_input_guardrails=self.tool_input_guardrails,
                    tool_output_guardrails=self.tool_output_guardrails,
                    custom_data_extractor=self.custom_data_extractor,
                    needs_approval=needs_approval,
                )
            )
        return made

    # -- the Agents SDK's hooks ---------------------------------------------------------

    def _get_failure_error_function(
        self, agent_failure_error_function: ToolErrorFunction | None
    ) -> ToolErrorFunction | None:
        """The server's `failure_error_function` when one was given, else the agent's."""
        if self._failure_error_function is UNSET_FAILURE_ERROR_FUNCTION:
            return agent_failure_error_function
        return self._failure_error_function

    def _get_needs_approval_for_tool(self, tool: Any, agent: Any) -> Any:
        """`needs_approval` for one listed tool, as the SDK's run loop reads it: never with
        an approval callback, which answers at the call instead of pausing the run."""
        if self.on_approval_request is not None:
            return False
        return self._approval_policy.needs_approval_for(
            tool_name=tool.name,
            annotations=field_of(tool, "annotations"),
            agent=agent,
            remote_tool=tool,
        )


class MCPToolMetaContext(NamedTuple):
    """What a `tool_meta_resolver` is told about a call it may add `_meta` to.

    Args:
        run_context: The run's context wrapper.
        server_name: The server the tool lives on.
        tool_name: The tool's name on the server.
        arguments: The arguments about to be sent.
    """

    run_context: RunContextWrapper[Any]
    server_name: str
    tool_name: str
    arguments: dict[str, Any] | None


def _arguments(tool_name: str, input_json: str) -> dict[str, Any]:
    try:
        decoded = json.loads(input_json) if input_json else {}
    except ValueError as error:
        detail = "" if dont_log_tool_data() else f": {input_json}"
        raise ModelBehaviorError(f"Invalid JSON input for tool {tool_name}{detail}") from error
    if not isinstance(decoded, dict):
        raise ModelBehaviorError(f"Invalid JSON input for tool {tool_name}: expected a JSON object")
    return decoded


def _result_output(result: Any, use_structured_content: bool) -> Any:
    """What the model gets from a `CallToolResult` (see the module docstring)."""
    structured = getattr(result, "structured_content", None)
    if use_structured_content and structured and not getattr(result, "is_error", False):
        return json.dumps(structured)
    blocks = [
        block.model_dump(by_alias=True, exclude_none=True, mode="json") for block in result.content
    ]
    if len(blocks) == 1 and blocks[0].get("type") == "text":
        return str(blocks[0].get("text", ""))
    outputs = content_to_outputs(blocks)
    if not outputs:
        return ""
    return outputs[0] if len(outputs) == 1 else outputs


def _schema(server_name: str, tool: Any, strict: bool) -> tuple[dict[str, Any], bool]:
    schema: dict[str, Any] = copy.deepcopy(tool.input_schema or {})
    schema.setdefault("properties", {})
    if not strict:
        return schema, False
    try:
        made = ensure_strict_json_schema(
            copy.deepcopy(schema), _reject_open_objects=bool(tool.input_schema)
        )
    except Exception as error:
        # The SDK's conversion refuses some schemas that are strict as served (one that
        # reaches its objects through `$ref`s, as toolwire's servers send): kept as is.
        with contextlib.suppress(Exception):
            if ensure_strict_json_schema(copy.deepcopy(schema)) == schema:
                return schema, True
        logger.info(
            "MCP server %r: tool %r keeps its non-strict schema: %s", server_name, tool.name, error
        )
        return schema, False
    return made, True


async def _call_meta(
    server: MCPClientServer, ctx: Any, tool_name: str, arguments: dict[str, Any], listed: Any
) -> dict[str, Any] | None:
    """A call's `_meta`: the `tool_meta_resolver`'s, then the `_meta` the tool was listed with
    over it (the SDK sends a tool's listed `_meta` back with each call); None when neither has
    any."""
    given = None
    resolver = server.tool_meta_resolver
    if resolver is not None:
        # A copy: what the resolver does to the arguments is not what gets sent.
        context = MCPToolMetaContext(ctx, server.name, tool_name, copy.deepcopy(arguments))
        given = await resolved(resolver(context))
        if given is not None and not isinstance(given, dict):
            raise UserError(
                f"tool_meta_resolver for MCP server '{server._shown_name}' must return a dict"
            )
    if given is None and not isinstance(listed, dict):
        return None
    return {**copy.deepcopy(given or {}), **copy.deepcopy(listed or {})}


def _invoker(
    server: MCPClientServer,
    remote_name: str,
    shown_name: str,
    callback: Callable[..., Any] | None,
    agent: Any,
    listed_meta: Any,
) -> Callable[..., Any]:
    async def on_invoke_tool(ctx: ToolContext[Any], input_json: str) -> Any:
        try:
            arguments = _arguments(shown_name, input_json)
            meta = await _call_meta(server, ctx, remote_name, arguments, listed_meta)
            # The server's own gate asks the callback, shown this run's context.
            note_call(CallScope(server, remote_name, arguments, ctx, callback, agent))
            # The server checks the arguments itself; the SDK's required-keys check would
            # refuse calls that leave out a defaulted argument a strict schema lists.
            result = await server.call_tool_unchecked(remote_name, arguments, meta)
            return _result_output(result, server.use_structured_content)
        except Exception as error:
            answer = server._get_failure_error_function(default_tool_error_function)
            if answer is None:
                raise
            logger.warning(
                "MCP tool %r on server %r failed: %s", remote_name, server._shown_name, error
            )
            return await resolved(answer(ctx, error))

    return on_invoke_tool
