"""Building ahead of time what a tool's first call would otherwise build.

Decorating a simple function writes its JSON schema without pydantic (`fast_function_schema`);
the function's pydantic model, and pydantic itself, come with its first call. A server warms
its tools up in a background thread once it has answered the first `tools/list`, so that cost
is paid while the client (or its model) is busy elsewhere, not inside the first call. A call
that arrives mid-way simply waits for, or shares, the work (`CallPlan.ensure_resolved` is
thread-safe).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

from .invoke import FunctionInvoker

__all__ = ["warm_up_in_background"]

logger = logging.getLogger("toolwire.tools")


def _warm_up(tools: Iterable[Any]) -> None:
    """Build every decorated tool's argument model, and load what results need."""
    for tool in tools:
        invoker = getattr(tool, "on_invoke_tool", None)
        if not isinstance(invoker, FunctionInvoker):
            continue
        try:
            invoker.plan.ensure_resolved()
        except Exception:  # the tool's first call raises it again, where it is reported
            logger.debug("warming up tool %r failed", getattr(tool, "name", "?"), exc_info=True)
    from . import outputs  # noqa: F401 - results are told apart with these models


def warm_up_in_background(tools: Iterable[Any]) -> threading.Thread:
    """Run `_warm_up` in a thread of its own (not a daemon: exit waits the few ms it takes)."""
    thread = threading.Thread(target=_warm_up, args=(list(tools),), name="toolwire-warmup")
    thread.start()
    return thread
