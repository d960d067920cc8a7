"""Helpers for the apply_patch server's tests: a root with files, and its whole state."""

from __future__ import annotations

import os
from pathlib import Path

from toolwire_patch import Patcher, PatchError


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str, int]]:
    """Every entry under `root`: kind, content (or link target) and mode."""
    state: dict[str, tuple[str, bytes | str, int]] = {}
    for directory, names, files in os.walk(root):
        for name in names + files:
            path = Path(directory) / name
            relative = str(path.relative_to(root))
            status = path.lstat()
            if path.is_symlink():
                state[relative] = ("link", os.readlink(path), 0)
            elif path.is_dir():
                state[relative] = ("dir", b"", status.st_mode & 0o777)
            else:
                state[relative] = ("file", path.read_bytes(), status.st_mode & 0o777)
    return state


def write(root: Path, files: dict[str, str | bytes]) -> None:
    """Create files under `root` (text is written as UTF-8 bytes, byte for byte)."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)


def envelope(body: str) -> str:
    """`body` between the Codex markers."""
    return f"*** Begin Patch\n{body}\n*** End Patch"


def fails(call: object) -> str:
    """The PatchError text of a call that must fail."""
    try:
        result = call()  # type: ignore[operator]
    except PatchError as error:
        assert "\n" not in str(error) and len(str(error)) <= 121  # what logs get
        return error.message
    raise AssertionError(f"expected a PatchError, got {result!r}")


def patcher(root: Path, **limits: object) -> Patcher:
    from toolwire_patch import Limits

    return Patcher([str(root)], Limits(**limits) if limits else None)  # type: ignore[arg-type]
