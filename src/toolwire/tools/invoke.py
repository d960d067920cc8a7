"""Calling a `FunctionTool` from outside a model run: the outcome, and the SDK's timeouts."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ToolTimeoutError
from ._invoker import FunctionInvoker, handled_failure
from .aborts import as_tool_failure
from .call_log import log_failed_call, log_timeout
from .failure import default_tool_error_function, default_tool_timeout_error_message
from .threads import sync_limiter

if TYPE_CHECKING:
    from anyio import CapacityLimiter

    from ..context import ToolContext
    from .function_tool import FunctionTool
    from .threads import SyncBudget

__all__ = ["ToolOutcome", "invoke_function_tool", "invoke_tool"]


@dataclass(frozen=True)
class ToolOutcome:
    """What one call produced.

    Args:
        output: The tool's output, or the failure text when the call failed.
        error: The exception behind a failed call; None when it succeeded.
    """

    output: Any
    error: BaseException | None = None

    @property
    def is_error(self) -> bool:
        """Whether the call failed (MCP's `isError`)."""
        return self.error is not None


async def invoke_tool(
    tool: FunctionTool,
    ctx: ToolContext[Any],
    arguments_json: str,
    arguments: dict[str, Any] | None = None,
    limiter: SyncBudget | CapacityLimiter | None = None,
) -> ToolOutcome:
    """Run `tool.on_invoke_tool` and say whether it failed.

    A decorated tool turns failures into its failure function's text; that text comes back as
    `output` with `error` set. An exception that escapes `on_invoke_tool` (a hand-built tool,
    or `failure_error_function=None`) is caught here too, and the model-facing text is the
    default failure text, so nothing about the exception leaks. `arguments`, when given, is
    `arguments_json` already decoded (a decorated tool then skips decoding it again).
    `limiter` bounds the worker threads of a sync tool (a server's budget, see threads.py);
    a tool not decorated by toolwire that calls `run_sync` sees it as `sync_limiter`.

    Every failure is logged once at WARNING on the `toolwire` logger (see call_log.py): by the
    decorated tool's invoker when its failure function answered it, here when it escaped.
    """
    invoker = tool.on_invoke_tool
    if type(invoker) is FunctionInvoker:  # says which failure it handled: no slot needed
        try:
            output, handled = await invoker.call(ctx, arguments_json, arguments, limiter)
        except Exception as error:
            log_failed_call(tool.name, error, arguments_json)
            return ToolOutcome(default_tool_error_function(ctx, error), error)
        return ToolOutcome(output, handled)
    slot: list[BaseException] = []
    token = handled_failure.set(slot)
    budget = sync_limiter.set(limiter) if limiter is not None else None
    try:
        output = await tool.on_invoke_tool(ctx, arguments_json)
    except BaseException as escaped:  # SystemExit & co. from a hand-built tool: aborts.py
        failure = (
            escaped if isinstance(escaped, Exception) else as_tool_failure(escaped, in_thread=False)
        )
        if failure is None:
            raise
        log_failed_call(tool.name, failure, arguments_json)
        return ToolOutcome(default_tool_error_function(ctx, failure), failure)
    finally:
        handled_failure.reset(token)
        if budget is not None:
            sync_limiter.reset(budget)
    return ToolOutcome(output, slot[0] if slot else None)


async def invoke_function_tool(tool: FunctionTool, ctx: ToolContext[Any], arguments: str) -> Any:
    """Call a tool as the Agents SDK's runner does, timeouts included.

    With `timeout_seconds` set: "error_as_result" returns the timeout text (or
    `timeout_error_function`'s), "raise_exception" raises `ToolTimeoutError`.
    """
    timeout = tool.timeout_seconds
    if timeout is None:
        return await tool.on_invoke_tool(ctx, arguments)
    try:
        return await asyncio.wait_for(tool.on_invoke_tool(ctx, arguments), timeout)
    except TimeoutError:
        error = ToolTimeoutError(tool.name, timeout)
        if tool.timeout_behavior == "raise_exception":
            raise error from None
        log_timeout(tool.name, timeout, arguments)
        if tool.timeout_error_function is None:
            return default_tool_timeout_error_message(tool_name=tool.name, timeout_seconds=timeout)
        text = tool.timeout_error_function(ctx, error)
        return await text if inspect.isawaitable(text) else text
