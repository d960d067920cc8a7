"""What a model provider would refuse in a tool's input schema, each with what to do about it.

`schema_problems(schema, dialect)` checks a schema against one of `DIALECTS`: "openai-strict"
(OpenAI function calling with `strict: true`), "gemini" (function declarations given as JSON
Schema, `parametersJsonSchema`) or "anthropic" (Claude tool use, `input_schema`). It reports
only what the provider refuses, never keywords it merely ignores, each `SchemaProblem` saying
what to do; the checks read the schema and call no service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._problems_anthropic import anthropic_problems
from ._problems_common import Found
from ._problems_gemini import gemini_problems
from ._problems_openai import openai_strict_problems

__all__ = ["DIALECTS", "SchemaProblem", "schema_problems"]

DIALECTS: tuple[str, ...] = ("openai-strict", "gemini", "anthropic")


@dataclass(frozen=True)
class SchemaProblem:
    """One thing a provider would refuse, and the way out.

    Args:
        dialect: The provider dialect that refuses it.
        path: Where, as dotted keys from the root ("" for the root itself).
        message: What is wrong and what the author can do about it.
    """

    dialect: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path or '(root)'}: {self.message}"


_CHECKS: dict[str, Callable[[dict[str, Any]], Found]] = {
    "openai-strict": openai_strict_problems,
    "gemini": gemini_problems,
    "anthropic": anthropic_problems,
}


def schema_problems(schema: dict[str, Any], dialect: str) -> list[SchemaProblem]:
    """List what `dialect`'s provider would refuse in `schema` (empty when nothing).

    Args:
        schema: A tool's input JSON schema.
        dialect: "openai-strict", "gemini" or "anthropic".

    Returns:
        The problems in schema order, each with its path and what the author can do.

    Raises:
        ValueError: If the dialect is not one of the three.
    """
    check = _CHECKS.get(dialect)
    if check is None:
        raise ValueError(
            f"unknown schema dialect {dialect!r}; expected one of {', '.join(DIALECTS)}"
        )
    if not isinstance(schema, dict):
        return [
            SchemaProblem(
                dialect, "", f"a schema must be a JSON object, not {type(schema).__name__}"
            )
        ]
    seen: set[tuple[str, str]] = set()
    problems: list[SchemaProblem] = []
    for path, message in check(schema):
        if (path, message) not in seen:
            seen.add((path, message))
            problems.append(SchemaProblem(dialect, path, message))
    return problems
