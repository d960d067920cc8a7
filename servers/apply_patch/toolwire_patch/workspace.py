"""The files a patch may touch, through `toolwire.paths`, and writing a plan all or nothing.

`RootsWorkspace` names each path by the real location the resolver finds inside the roots
(so two spellings of one file are one file) and reads through it, which confines reads and
writes to the roots: `..` above a root, absolute paths elsewhere, and links leading out are
refused. `commit` first writes every new content to a temporary file beside its target,
then swaps them in with renames, keeping each old file under a temporary name until all are
in; a failure at any step renames everything back and removes what it created, so the
files are as they were.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolwire.paths import PathError, PathNotFoundError, Root, Roots

from .errors import PatchError
from .plan import Change
from .report import NOTHING_CHANGED

__all__ = ["RootsWorkspace", "commit"]

logger = logging.getLogger("toolwire.patch")


def _refused(error: PathError) -> PatchError:
    return PatchError(f"{error}. {NOTHING_CHANGED}")


class RootsWorkspace:
    """Files inside a set of roots.

    Args:
        roots: The directories patches are confined to.
    """

    def __init__(self, roots: Roots) -> None:
        self.roots = roots
        self._where: dict[str, tuple[Root, str]] = {}

    def key(self, path: str, *, follow: bool = True) -> str:
        """The file's real place as "root number:relative path"; with `follow` false a
        symbolic link at the end of the path is named itself, not its target.

        Raises:
            PatchError: The path is empty, outside every root, or leads through something
                that is not a directory.
        """
        if not path.strip():
            raise PatchError(f"a path is empty. {NOTHING_CHANGED}")
        try:
            root, relative = self.roots.locate(path)
            resolved = self._resolve(root, relative, path, follow)
        except PathError as error:
            raise _refused(error) from None
        if not resolved:
            raise PatchError(f"'{path}': it names a root directory, not a file. {NOTHING_CHANGED}")
        key = f"{list(self.roots).index(root)}:{resolved}"
        self._where[key] = (root, resolved)
        return key

    @staticmethod
    def _resolve(root: Root, relative: str, shown: str, follow: bool) -> str:
        """Resolve what exists of the path; the missing rest must be plain names."""
        parts = [part for part in relative.split("/") if part not in ("", ".")]
        missing: list[str] = []
        while True:
            try:
                base = (
                    root.resolve("/".join(parts), follow=follow or bool(missing)) if parts else ""
                )
                break
            except PathNotFoundError:
                if not parts:
                    raise
                missing.insert(0, parts.pop())
        if ".." in missing:
            raise PathError(shown, "it climbs with '..' out of a directory that does not exist")
        return "/".join(part for part in [base, *missing] if part)

    def read(self, key: str) -> bytes | None:
        """The file's bytes, or None if it does not exist (or its directory does not).

        Raises:
            PatchError: Something other than a regular file is there.
        """
        root, relative = self._where[key]
        try:
            return root.read_bytes(relative)
        except PathNotFoundError:
            return None
        except PathError as error:
            raise _refused(error) from None

    def is_link(self, key: str) -> bool:
        """Whether the key names a symbolic link (only keys made with `follow=False` can)."""
        root, relative = self._where[key]
        try:
            return stat.S_ISLNK(root.stat(relative, follow=False).st_mode)
        except PathError:
            return False

    def place(self, key: str) -> tuple[Root, str]:
        """The root and relative path of a key handed out by `key`."""
        return self._where[key]


@dataclass
class _Step:
    root: Root
    path: str
    stage: str | None = None  # the new content's temporary name
    backup: str | None = None  # where the old file waits
    placed: bool = False  # the new content is at `path`
    mode: int | None = None


def _sibling(path: str, tag: str) -> str:
    head, _, name = path.rpartition("/")
    hidden = f".{name}.{tag}-{secrets.token_hex(4)}"
    return f"{head}/{hidden}" if head else hidden


def _missing_directories(root: Root, path: str) -> list[str]:
    parts = path.split("/")[:-1]
    missing: list[str] = []
    for depth in range(len(parts), 0, -1):
        directory = "/".join(parts[:depth])
        if root.exists(directory):
            break
        missing.append(directory)
    return missing  # deepest first


def _quietly(
    action: str, step: _Step, call: Callable[..., object], *args: object, **kwargs: object
) -> None:
    try:
        call(*args, **kwargs)
    except (OSError, PathError) as error:
        logger.error("apply_patch: could not %s %s during roll-back: %s", action, step.path, error)


def commit(changes: Sequence[Change], workspace: RootsWorkspace) -> None:
    """Write every change, or none of them.

    Raises:
        PatchError: A write failed or a file changed since it was read; everything done so
            far was undone, and the message says which file and why.
    """
    steps: list[_Step] = []
    created: list[tuple[Root, str]] = []
    try:
        for change in changes:
            root, path = workspace.place(change.key)
            step = _Step(root, path)
            steps.append(step)
            if change.after is None:
                continue
            if change.before is not None:
                step.mode = stat.S_IMODE(root.stat(path).st_mode)
            new_directories = _missing_directories(root, path)
            stage = _sibling(path, "patch")
            created.extend((root, directory) for directory in new_directories)
            root.write_bytes(
                stage, change.after, create_parents=True, exclusive=True, mode=step.mode
            )
            step.stage = stage
        for change, step in zip(changes, steps, strict=True):
            if change.before is not None:
                backup = _sibling(step.path, "orig")
                step.root.rename(step.path, backup)
                step.backup = backup
                if not change.link and step.root.read_bytes(backup) != change.before:
                    raise PatchError(
                        f"{change.path} changed on disk while the patch was being applied; "
                        f"apply it again. {NOTHING_CHANGED}"
                    )
            elif step.root.exists(step.path):
                raise PatchError(
                    f"{change.path} appeared on disk while the patch was being applied; "
                    f"apply it again. {NOTHING_CHANGED}"
                )
            if step.stage is not None:
                step.root.rename(step.stage, step.path)
                step.stage, step.placed = None, True
    except (PatchError, PathError, OSError) as error:
        _roll_back(steps, created)
        if isinstance(error, PatchError):
            raise
        raise PatchError(f"writing the patch failed: {error}. {NOTHING_CHANGED}") from None
    except BaseException:
        _roll_back(steps, created)
        raise
    for step in steps:
        if step.backup is not None:
            _quietly("remove the old copy of", step, step.root.delete, step.backup)


def _roll_back(steps: list[_Step], created: list[tuple[Root, str]]) -> None:
    for step in reversed(steps):
        if step.placed:
            _quietly("remove the new", step, step.root.delete, step.path)
        if step.backup is not None:
            _quietly("restore", step, step.root.rename, step.backup, step.path, overwrite=True)
        if step.stage is not None:
            _quietly("remove the staged", step, step.root.delete, step.stage)
    for root, directory in created:
        with contextlib.suppress(OSError, PathError):
            root.delete(directory, directory=True)
