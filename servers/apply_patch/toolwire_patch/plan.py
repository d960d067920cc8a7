"""From parsed operations to the final content of every file a patch touches, in memory.

Operations run in order against a view of the workspace in which earlier operations of the
same patch are already applied, so a patch may add a file and then update it. Nothing is
written here: the result is a list of `Change`s (each path's bytes before and after) that
`commit` applies all together or not at all, or that a dry run turns into diffs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from .errors import LimitError, PatchError
from .match import Deadline
from .report import NOTHING_CHANGED
from .text import FileText, decode, dominant_ending, encode, join

__all__ = ["Change", "Limits", "Operation", "Plan", "Workspace", "plan"]


@dataclass(frozen=True)
class Limits:
    """The bounds of one patch; each error that hits one names it and its option.

    Attributes:
        max_patch_bytes: Size of the patch text (all diffs together), in UTF-8 bytes.
        max_files: Distinct files one patch may touch.
        max_file_bytes: Size of any file read or written.
        max_seconds: Time to parse, match and stage the patch.
    """

    max_patch_bytes: int = 4 * 1024 * 1024
    max_files: int = 200
    max_file_bytes: int = 16 * 1024 * 1024
    max_seconds: float = 30.0


class Workspace(Protocol):
    """Where the files are: how a patch's path is named on disk, and reading one."""

    def key(self, path: str, *, follow: bool = True) -> str:
        """The canonical name of `path` inside the roots (of a final symbolic link itself
        when not `follow`); raises `PatchError` if outside."""
        ...

    def is_link(self, key: str) -> bool:
        """Whether `key` names a symbolic link."""
        ...

    def read(self, key: str) -> bytes | None:
        """A file's bytes, None when it does not exist; raises `PatchError` for a directory
        or anything else that is not a regular file."""
        ...


@dataclass
class Operation:
    """One step of a patch, whatever its format.

    Attributes:
        kind: "create", "update" or "delete".
        path: The file as the patch names it.
        move_to: An update's new name.
        create: For "create": the new file's text.
        update: For "update": `(file, deadline) -> (new lines, newline, end with newline)`.
        overwrite: Whether "create" may replace an existing file (Codex) or must not (SDK).
    """

    kind: Literal["create", "update", "delete"]
    path: str
    move_to: str | None = None
    create: str = ""
    update: (
        Callable[[FileText, Deadline], tuple[list[tuple[str, str | None]], str, bool]] | None
    ) = None
    overwrite: bool = False


@dataclass
class Change:
    """A file's state before and after the patch (None: absent).

    Attributes:
        key: The canonical name.
        path: The name the patch used (for messages and diffs).
        before: Its bytes before.
        after: Its bytes after.
        moved_from: The name of the file whose content moved here, if it did.
        link: Whether the path is a symbolic link (deleted as a link, never its target).
    """

    key: str
    path: str
    before: bytes | None
    after: bytes | None
    moved_from: str | None = None
    link: bool = False


@dataclass
class Plan:
    """The outcome of a patch, not yet written.

    Attributes:
        changes: Every touched file whose bytes differ, in first-touched order.
        done: One line per operation ("Created a.py", "Updated b.py", ...).
        letters: The Codex summary's per-file letters and names ("A a.py", "M b.py", ...).
    """

    changes: list[Change]
    done: list[str]
    letters: list[str]


def _too_big(path: str, size: int, limits: Limits) -> LimitError:
    return LimitError(
        f"{path} is {size:,} bytes, over the server's limit of {limits.max_file_bytes:,} bytes "
        f"per file (--max-file-bytes). {NOTHING_CHANGED}"
    )


def plan(
    operations: list[Operation], workspace: Workspace, limits: Limits, deadline: Deadline
) -> Plan:
    """Run the operations in memory against the workspace.

    Raises:
        PatchError: An operation cannot be applied (missing file, create over an existing
            one, a path outside the roots, a hunk that does not match, ...).
        LimitError: A bound is exceeded.
    """
    original: dict[str, bytes | None] = {}
    current: dict[str, bytes | None] = {}
    names: dict[str, str] = {}
    done: list[str] = []
    letters: list[str] = []
    moved: dict[str, str] = {}
    links: set[str] = set()

    def touch(path: str, follow: bool = True) -> str:
        key = workspace.key(path, follow=follow)
        if key in original:
            return key
        if len(original) >= limits.max_files:
            raise LimitError(
                f"the patch touches more than {limits.max_files} files, the server's limit "
                f"(--max-files); {path} is one too many. Split the patch. {NOTHING_CHANGED}"
            )
        if not follow and workspace.is_link(key):
            data: bytes | None = b""  # a link is removed itself: its target is not read
            links.add(key)
        else:
            data = workspace.read(key)
        if data is not None and len(data) > limits.max_file_bytes:
            raise _too_big(path, len(data), limits)
        original[key] = current[key] = data
        names[key] = path
        return key

    def written(path: str, data: bytes) -> bytes:
        if len(data) > limits.max_file_bytes:
            raise _too_big(path, len(data), limits)
        return data

    for operation in operations:
        deadline.check()
        path = operation.path
        key = touch(path, follow=operation.kind != "delete")
        if operation.kind == "create":
            if current[key] is not None and not operation.overwrite:
                raise PatchError(
                    f"cannot create {path}: it already exists. Use an update_file operation to "
                    f"change an existing file. {NOTHING_CHANGED}"
                )
            current[key] = written(path, encode(operation.create, bom=False))
            done.append(f"Created {path}")
            letters.append(f"A {path}")
            continue
        existing = current[key]
        if existing is None:
            verb = "delete" if operation.kind == "delete" else "update"
            raise PatchError(f"cannot {verb} {path}: no such file. {NOTHING_CHANGED}")
        if operation.kind == "delete":
            current[key] = None
            done.append(f"Deleted {path}")
            letters.append(f"D {path}")
            continue
        assert operation.update is not None
        old = decode(existing, path)
        lines, newline, terminate = operation.update(old, deadline)
        text = join(lines, newline or dominant_ending(old.lines), terminate_last=terminate)
        data = written(path, encode(text, bom=old.bom))
        if operation.move_to is None:
            current[key] = data
            done.append(f"Updated {path}")
            letters.append(f"M {path}")
            continue
        target = touch(operation.move_to)
        current[key] = None
        current[target] = data
        moved[target] = path
        done.append(f"Updated {path}\nMoved {path} to {operation.move_to}")
        letters.append(f"M {operation.move_to}")
    changes = [
        Change(key, names[key], original[key], current[key], moved.get(key), key in links)
        for key in original
        if original[key] != current[key]
    ]
    return Plan(changes=changes, done=done, letters=letters)
