"""What the helper modules need of a server object, so that they need not import `base`.

`base.MCPClientServer` satisfies it; the helpers (`_listing`, `_convert`, `naming`) sit
below it and take any object of this shape.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..tools.failure import ToolErrorFunction
    from ..tools.function_tool import FunctionTool

__all__ = ["RemoteServer"]


class RemoteServer(Protocol):
    """The members of a client server that conversion, listing and naming read."""

    tool_filter: Any
    prefix_tool_names: bool
    require_approval: Any
    use_structured_content: bool
    tool_meta_resolver: Callable[..., Any] | None
    custom_data_extractor: Callable[..., Any] | None
    tool_input_guardrails: list[Any] | None
    tool_output_guardrails: list[Any] | None

    @property
    def name(self) -> str: ...

    @property
    def last_listed_tools(self) -> list[Any] | None: ...

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> Any: ...

    def call_tool_unchecked(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> Coroutine[Any, Any, Any]: ...

    async def function_tools(
        self,
        on_approval_request: Callable[..., Any] | None = None,
        *,
        convert_schemas_to_strict: bool = False,
        run_context: Any = None,
        agent: Any = None,
    ) -> list[FunctionTool]: ...

    def _get_failure_error_function(
        self, agent_failure_error_function: ToolErrorFunction | None
    ) -> ToolErrorFunction | None: ...
