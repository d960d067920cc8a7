"""The bounds strict conversion keeps to, so a hostile or broken schema fails fast.

Two things can blow up: nesting (Python recursion) and size (a `$ref` that is inlined is walked
again at every place it is used, so a few definitions that use each other twice can expand
exponentially). Both limits, and the points where they are counted, match the Agents SDK so that
the same schema is accepted or refused by both.
"""

from __future__ import annotations

from ..errors import UserError
from ._strict_errors import TOO_DEEP, TOO_LARGE

# Counted in containers (a dict or a list) from the root, the root being 1; the conversion walk
# counts schema visits the same way (the root visit is 1 and every inlining adds one).
MAX_DEPTH = 100
# Schema visits in one conversion, re-visits of inlined `$ref` targets included.
MAX_VISITS = 100_000


def check_nesting(document: object) -> None:
    """Refuse a document whose dicts and lists nest more than MAX_DEPTH deep.

    Runs before the conversion walk, over every value (defaults and examples too), so that the
    walk and any later deep copy never meet a structure deep enough to exhaust the stack.
    Iterative, so that the check itself cannot.
    """
    pending: list[tuple[object, int]] = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise UserError(TOO_DEEP)
        if isinstance(value, dict):
            children: object = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        for child in children:  # type: ignore[attr-defined]
            if isinstance(child, (dict, list)):
                pending.append((child, depth + 1))


class VisitBudget:
    """Counts schema visits and refuses the schema when there are more than MAX_VISITS."""

    __slots__ = ("left",)

    def __init__(self, limit: int = MAX_VISITS) -> None:
        self.left = limit

    def spend(self) -> None:
        """Account for one more visit."""
        self.left -= 1
        if self.left < 0:
            raise UserError(TOO_LARGE)
