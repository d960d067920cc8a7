"""Both input forms turned into `Operation`s: the Codex envelope and the SDK's operation list."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import envelope, v4a
from .errors import PatchError
from .match import Deadline
from .plan import Operation
from .report import NOTHING_CHANGED
from .text import FileText, Line

__all__ = ["from_envelope", "from_operations"]

_KINDS = {"create_file": "create", "update_file": "update", "delete_file": "delete"}


def _codex_update(chunks: list[envelope.Chunk], path: str) -> Any:
    def run(old: FileText, deadline: Deadline) -> tuple[list[Line], str, bool]:
        return envelope.update_lines(old.lines, chunks, path, deadline), "", True

    return run


def _sdk_update(diff: str, path: str) -> Any:
    def run(old: FileText, deadline: Deadline) -> tuple[list[Line], str, bool]:
        lines = list(old.lines)
        if old.ends_with_newline:
            lines.append(("", None))  # what the final newline looks like to `split("\n")`
        new, newline = v4a.update_lines(lines, diff, path, deadline)
        return new, newline, False

    return run


def from_envelope(patch: str) -> list[Operation]:
    """The operations of a Codex patch (Add overwrites, as in Codex)."""
    operations: list[Operation] = []
    for file in envelope.parse(patch):
        if file.kind == "add":
            operations.append(Operation("create", file.path, create=file.contents, overwrite=True))
        elif file.kind == "delete":
            operations.append(Operation("delete", file.path))
        else:
            operations.append(
                Operation(
                    "update",
                    file.path,
                    move_to=file.move_to,
                    update=_codex_update(file.chunks, file.path),
                )
            )
    return operations


def _field(index: int, operation: Mapping[str, Any], name: str) -> Any:
    value = operation.get(name)
    if value is not None and not isinstance(value, str):
        raise PatchError(
            f"operations[{index}].{name} must be a string, got {type(value).__name__}. "
            f"{NOTHING_CHANGED}"
        )
    return value


def from_operations(operations: Sequence[Any]) -> list[Operation]:
    """The SDK's operations (`type`, `path`, `diff`, `move_to`), checked as the SDK checks them.

    Raises:
        PatchError: An empty list, an unknown type, an empty path or `move_to`, a missing diff,
            or a diff that cannot be read; the message names the operation's index.
    """
    if not operations:
        raise PatchError(f"operations is empty: send at least one operation. {NOTHING_CHANGED}")
    result: list[Operation] = []
    for index, raw in enumerate(operations):
        if not isinstance(raw, Mapping):
            raise PatchError(
                f"operations[{index}] must be an object with type, path and diff, got "
                f"{type(raw).__name__}. {NOTHING_CHANGED}"
            )
        kind = raw.get("type")
        if kind not in _KINDS:
            raise PatchError(
                f"operations[{index}]: Unknown apply_patch operation: {kind!r}; the types are "
                f"create_file, update_file and delete_file. {NOTHING_CHANGED}"
            )
        path = _field(index, raw, "path")
        if not path:
            raise PatchError(
                f"operations[{index}] ({kind}) is missing a valid path. {NOTHING_CHANGED}"
            )
        diff = _field(index, raw, "diff")
        move_to = _field(index, raw, "move_to")
        if move_to is not None and not move_to:
            raise PatchError(
                f"operations[{index}]: move_to must be a non-empty path. {NOTHING_CHANGED}"
            )
        if kind != "delete_file" and not diff:
            raise PatchError(
                f"operations[{index}] ({kind} {path}) is missing the required diff payload. "
                f"{NOTHING_CHANGED}"
            )
        if kind == "create_file":
            result.append(Operation("create", path, create=v4a.create_text(diff, path)))
        elif kind == "delete_file":
            result.append(Operation("delete", path))
        else:
            result.append(
                Operation("update", path, move_to=move_to, update=_sdk_update(diff, path))
            )
    return result
