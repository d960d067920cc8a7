"""toolwire.function_tool beside agents.function_tool: decorate, invoke, import. Prints ratios.

Run: `python -m tests.benchmarks.bench_function_tool` from the repository root. It asserts
nothing about time (machines are shared and noisy); it prints what it measured.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, Literal, Optional  # noqa: F401 - used by the generated functions

from pydantic import BaseModel, Field  # noqa: F401 - used by the generated functions

FUNCTIONS = 200
CALLS = 10_000
TEMPLATES = [
    'def f{i}(a: int, b: int = 2) -> int:\n    """Add.\n\n    Args:\n        a: first\n        b: second\n    """\n    return a + b',
    'def f{i}(query: str, limit: Optional[int] = None, mode: Literal["x", "y"] = "x") -> str:\n    """Search."""\n    return query',
    'def f{i}(values: list[float], factor: float) -> list[float]:\n    """Scale.\n\n    Parameters\n    ----------\n    values : list[float]\n        numbers\n    factor : float\n        multiplier\n    """\n    return values',
    'def f{i}(x: int = Field(3, ge=0, description="x"), *, y: str = "a") -> str:\n    return y',
    'async def f{i}(text: str, times: int = 1) -> str:\n    """Repeat.\n\n    :param text: what\n    :param times: how often\n    """\n    return text * times',
]


def _functions() -> list[Callable[..., Any]]:
    namespace: dict[str, Any] = dict(globals())
    for i in range(FUNCTIONS):
        exec(TEMPLATES[i % len(TEMPLATES)].format(i=i), namespace)
    return [namespace[f"f{i}"] for i in range(FUNCTIONS)]


def _decorate(decorator: Callable[..., Any]) -> float:
    functions = _functions()
    started = time.perf_counter()
    for function in functions:
        decorator(function)
    return time.perf_counter() - started


def _invoke(tool: Any, context: Any) -> float:
    async def loop() -> float:
        args = '{"a": 1, "b": 2}'
        started = time.perf_counter()
        for _ in range(CALLS):
            await tool.on_invoke_tool(context, args)
        return time.perf_counter() - started

    return asyncio.run(loop())


def _import_time(statement: str, runs: int = 5) -> float:
    times = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", statement], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times[1:])


def main() -> None:
    import agents
    from agents.tool_context import ToolContext as SdkToolContext

    import toolwire

    def add(a: int, b: int = 2) -> int:
        """Add two integers."""
        return a + b

    async def add_async(a: int, b: int = 2) -> int:
        """Add two integers."""
        return a + b

    rows = []
    sdk_decorate = min(_decorate(agents.function_tool) for _ in range(3))
    tw_decorate = min(_decorate(toolwire.function_tool) for _ in range(3))
    rows.append(("decorate 200 functions", sdk_decorate, tw_decorate))
    for label, function in (("sync", add), ("async", add_async)):
        sdk_tool, tw_tool = agents.function_tool(function), toolwire.function_tool(function)
        sdk_ctx = SdkToolContext(None, tool_name=sdk_tool.name, tool_call_id="c", tool_arguments="")
        tw_ctx = toolwire.ToolContext(
            None, tool_name=tw_tool.name, tool_call_id="c", tool_arguments=""
        )
        sdk_time = min(_invoke(sdk_tool, sdk_ctx) for _ in range(3))
        tw_time = min(_invoke(tw_tool, tw_ctx) for _ in range(3))
        rows.append((f"invoke {CALLS} times ({label})", sdk_time, tw_time))
    rows.append(
        (
            "import (fresh process, median of 5)",
            _import_time("import agents"),
            _import_time("import toolwire"),
        )
    )
    rows.append(
        (
            "import + decorate one tool",
            _import_time(
                "import agents\n@agents.function_tool\ndef f(a: int) -> int:\n    return a"
            ),
            _import_time(
                "import toolwire\n@toolwire.function_tool\ndef f(a: int) -> int:\n    return a"
            ),
        )
    )
    print(f"{'measure':40} {'agents':>10} {'toolwire':>10} {'ratio':>8}")
    for label, sdk_time, tw_time in rows:
        print(
            f"{label:40} {sdk_time * 1000:9.1f}ms {tw_time * 1000:9.1f}ms {tw_time / sdk_time:7.2f}x"
        )


if __name__ == "__main__":
    main()
