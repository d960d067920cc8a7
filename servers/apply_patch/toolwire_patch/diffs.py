"""A dry run's report: each file's unified diff, as `git diff` would print it."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from .plan import Change
from .text import BOM

__all__ = ["unified"]


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    if data.startswith(BOM):
        data = data[len(BOM) :]
    return data.decode("utf-8", errors="replace").splitlines()


def unified(changes: Sequence[Change]) -> str:
    """The diffs of all changes; a moved file shows once, from its old name to its new."""
    befores = {change.path: change.before for change in changes}
    moved_away = {change.moved_from for change in changes if change.moved_from}
    parts: list[str] = []
    for change in changes:
        if change.path in moved_away and change.after is None:
            continue
        before = change.before
        old_name = f"a/{change.path}"
        if change.moved_from is not None:
            before = befores.get(change.moved_from)
            old_name = f"a/{change.moved_from}"
        elif before is None:
            old_name = "/dev/null"
        new_name = "/dev/null" if change.after is None else f"b/{change.path}"
        if change.link:
            parts.append(f"--- {old_name} (a symbolic link, removed itself)\n+++ {new_name}")
            continue
        body = list(
            difflib.unified_diff(
                _lines(before), _lines(change.after), old_name, new_name, lineterm=""
            )
        )
        if not body:
            body = [f"--- {old_name}", f"+++ {new_name}"]
        parts.append("\n".join(body))
    return "\n".join(parts)
