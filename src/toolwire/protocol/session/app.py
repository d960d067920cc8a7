"""What a session serves: the few things the protocol needs from the application above it
(`Server` is one; the protocol never imports it)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import asyncio

    import anyio

    from ...tools.threads import SyncBudget
    from ..features.prompt_registry import PromptRegistry
    from ..features.registry import ToolRegistry
    from ..features.resource_registry import ResourceRegistry

__all__ = ["OpenSession", "ServedApp"]


class OpenSession(Protocol):
    """What the application may do with a session it was told about."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The asyncio loop serving the session; None until it opens."""

    def start_soon(self, func: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        """Run `func()` in the session's task group."""

    async def list_changed(self, kind: str) -> None:
        """Tell the client that its list of `kind` ("tools", "resources", "prompts") changed."""

    async def resource_updated(self, uri: str) -> None:
        """Tell the client (if it follows `uri`) that the resource at `uri` changed."""


class ServedApp(Protocol):
    """The application a session publishes."""

    instructions: str | None
    max_message_bytes: int  # the largest message the application accepts

    @property
    def server_info(self) -> dict[str, Any]:
        """`serverInfo` as MCP sends it (`name` and `version`)."""

    @property
    def tool_registry(self) -> ToolRegistry:
        """The published tools."""

    @property
    def resource_registry(self) -> ResourceRegistry:
        """The published resources and resource templates."""

    @property
    def prompt_registry(self) -> PromptRegistry:
        """The published prompts."""

    @property
    def sync_limiter(self) -> SyncBudget | anyio.CapacityLimiter:
        """What bounds the worker threads of sync tools, for the running event loop."""

    def session_opened(self, session: OpenSession) -> None:
        """A session started: it hears of changes until it closes."""

    def session_closed(self, session: OpenSession) -> None:
        """A session ended."""

    async def session_ended(self, session_id: str) -> None:
        """The session with this id closed and its calls are over (never raises; returns
        within a bound even when cancelled)."""

    def tools_listed(self) -> None:
        """A client just received the tool list; calls usually follow (a warm-up hook)."""
