"""What conversion and naming read of a client server, so that they need not import `base`
(which imports them): `base.MCPClientServer` is the one implementation."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..tools.failure import ToolErrorFunction
    from ..tools.function_tool import FunctionTool

__all__ = ["RemoteServer"]


class RemoteServer(Protocol):
    """The members of `MCPClientServer` that `_convert` and `naming` use."""

    prefix_tool_names: bool
    use_structured_content: bool
    tool_meta_resolver: Callable[..., Any] | None
    custom_data_extractor: Callable[..., Any] | None
    tool_input_guardrails: list[Any] | None
    tool_output_guardrails: list[Any] | None

    @property
    def name(self) -> str: ...

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

    def _get_needs_approval_for_tool(self, tool: Any, agent: Any) -> Any: ...
