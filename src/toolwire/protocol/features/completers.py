"""Completers: what suggests values for one prompt argument or resource-template parameter: a
collection of strings (those starting with what was typed, case-insensitively) or a function
`completer(value, context)`, sync or async, returning strings it filtered itself."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from ...errors import UserError
from ...tools.threads import is_async_callable, run_sync_within

if TYPE_CHECKING:
    import anyio

    from ...tools.threads import SyncBudget

__all__ = ["MAX_VALUES", "SCAN_LIMIT", "Completer", "ask_completer", "check_completers"]

Completer: TypeAlias = (
    Iterable[str]
    | Callable[[str, dict[str, str]], Iterable[str]]
    | Callable[[str, dict[str, str]], Awaitable[Iterable[str]]]
)

MAX_VALUES = 100  # the spec's cap on one response's values
SCAN_LIMIT = 10_000  # how far a completer's result is read (for `total`)


class CompleterError(TypeError):
    """A completer produced something other than strings."""


def check_completers(
    completers: Mapping[str, Any] | None, names: Iterable[str], owner: str
) -> dict[str, Completer]:
    """Validate a declaration's completers (argument name -> completer) for `owner` ("prompt
    'review'"): a UserError when one names no argument in `names` or is no completer."""
    if completers is None:
        return {}
    if not isinstance(completers, Mapping):
        raise UserError(f"completers of {owner} must be a dict: argument name -> completer")
    known = set(names)
    checked: dict[str, Completer] = {}
    for name, completer in completers.items():
        if name not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise UserError(
                f"completers of {owner} name {name!r}, which is not one of its arguments ({listed})"
            )
        if isinstance(completer, str | bytes) or not (
            callable(completer) or isinstance(completer, Iterable)
        ):
            raise UserError(
                f"completer for {name!r} of {owner} must be a function or a list of strings"
            )
        if callable(completer):
            checked[name] = completer
            continue
        choices = tuple(completer)
        if not all(isinstance(choice, str) for choice in choices):
            raise UserError(f"completer for {name!r} of {owner} must list strings only")
        checked[name] = choices
    return checked


async def ask_completer(
    completer: Completer,
    value: str,
    context: dict[str, str],
    owner: str,
    limiter: SyncBudget | anyio.CapacityLimiter | None = None,
) -> list[str]:
    """The suggestions of one completer for `value`, up to `SCAN_LIMIT`; CompleterError when
    it returns something other than strings. A plain function (and the values it yields) runs
    in a worker thread within `limiter`, so a slow one holds no other request."""
    if not callable(completer):
        typed = value.casefold()
        return [choice for choice in completer if choice.casefold().startswith(typed)]
    if is_async_callable(completer):
        produced: Any = completer(value, context)
        return _checked(await produced, owner)
    produced = await run_sync_within(limiter, _called, (completer, value, context, owner), {})
    if inspect.isawaitable(produced):  # a plain function handing back a coroutine
        return _checked(await produced, owner)
    return list(produced)


def _called(completer: Callable[..., Any], value: str, context: dict[str, str], owner: str) -> Any:
    """A plain completer's values, read in the worker thread (or the awaitable it returned)."""
    produced = completer(value, context)
    return produced if inspect.isawaitable(produced) else _checked(produced, owner)


def _checked(produced: Any, owner: str) -> list[str]:
    if produced is None:
        return []
    if isinstance(produced, str | bytes) or not isinstance(produced, Iterable):
        raise CompleterError(
            f"completer of {owner} returned {type(produced).__name__}, not a list of strings"
        )
    values = list(itertools.islice(produced, SCAN_LIMIT))
    for item in values:
        if not isinstance(item, str):
            raise CompleterError(
                f"completer of {owner} returned a {type(item).__name__} value; values must be "
                "strings"
            )
    return values
