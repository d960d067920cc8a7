"""The differential corpus (tests/schema/_signatures.py) as toolwire tools, grouped so that
every group has unique tool names (several cases share a function name); one server per
group serves them in tests/client/test_round_trip.py."""

from __future__ import annotations

import warnings
from typing import Any

from tests.schema._signatures import CASES, Case, toolwire_flavor


def built_tools() -> list[tuple[Case, Any]]:
    """Every case that toolwire's `function_tool` accepts, with its tool."""
    from toolwire import function_tool

    made = []
    flavor = toolwire_flavor()
    for case in CASES:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tool = function_tool(case.build(flavor), **case.options)
        except Exception:
            continue  # refused at decoration: nothing to serve
        made.append((case, tool))
    return made


def groups() -> list[list[tuple[Case, Any]]]:
    """The built tools split into groups with unique names, in corpus order."""
    found: list[list[tuple[Case, Any]]] = []
    for case, tool in built_tools():
        for group in found:
            if all(other.name != tool.name for _, other in group):
                group.append((case, tool))
                break
        else:
            found.append([(case, tool)])
    return found
