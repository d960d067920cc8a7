"""A dry run's report: each file's unified diff, as `git diff` would print it."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from .plan import Change
from .text import BOM

__all__ = ["unified"]


def _lines(data: bytes | None) -> list[str]:
    """The file's lines with their endings: a "\\r" before a "\\n" stays in the line and a
    last line without "\\n" stays without, so that a change of either shows in the diff."""
    if data is None:
        return []
    if data.startswith(BOM):
        data = data[len(BOM) :]
    parts = data.decode("utf-8", errors="replace").split("\n")
    last = parts.pop()
    return [part + "\n" for part in parts] + ([last] if last else [])


def _printed(body: list[str]) -> list[str]:
    """Diff lines as `git diff` prints them: without their "\\n", and a line that has none
    followed by the marker saying so."""
    printed: list[str] = []
    for index, line in enumerate(body):
        if index < 2 or line.startswith("@@"):
            printed.append(line)  # the file names and the hunk heads carry no ending
        elif line.endswith("\n"):
            printed.append(line[:-1])
        else:
            printed += [line, "\\ No newline at end of file"]
    return printed


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
        body = _printed(
            list(
                difflib.unified_diff(
                    _lines(before), _lines(change.after), old_name, new_name, lineterm=""
                )
            )
        )
        if not body:
            body = [f"--- {old_name}", f"+++ {new_name}"]
        parts.append("\n".join(body))
    return "\n".join(parts)
